// hanabi-eval game viewer: the little behaviour its pages have. Plain JavaScript, no library, no build step.
// It only shows, hides, sorts and navigates what the server or the static site already rendered: it never
// builds markup from text (no innerHTML), so whatever a model wrote stays text.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function typing(event) {
    var target = event.target;
    var tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    return tag === "input" || tag === "textarea" || tag === "select" || (target && target.isContentEditable);
  }

  function gamePage() {
    var body = document.body;
    var steps = Array.prototype.slice.call(document.querySelectorAll("section.step"));
    var links = {};
    Array.prototype.forEach.call(document.querySelectorAll(".timeline a"), function (a) {
      links[a.getAttribute("data-anchor")] = a;
    });
    var position = document.getElementById("position");
    var reveal = document.getElementById("reveal");
    var current = -1;

    function indexOf(anchor) {
      for (var i = 0; i < steps.length; i++) {
        if (steps[i].getAttribute("data-anchor") === anchor) {
          return i;
        }
      }
      return -1;
    }

    function show(i) {
      if (i < 0 || i >= steps.length || i === current) {
        return;
      }
      if (current >= 0) {
        steps[current].classList.remove("current");
        var old = links[steps[current].getAttribute("data-anchor")];
        if (old) {
          old.classList.remove("current");
          old.removeAttribute("aria-current");
        }
      }
      current = i;
      var step = steps[i];
      var anchor = step.getAttribute("data-anchor");
      step.classList.add("current");
      var link = links[anchor];
      if (link) {
        link.classList.add("current");
        link.setAttribute("aria-current", "step");
      }
      position.textContent = step.getAttribute("data-label");
      if (location.hash !== "#" + anchor) {
        history.replaceState(null, "", "#" + anchor);
      }
    }

    // the next step after the current one (wrapping round) whose attribute is "1"
    function nextWith(attribute) {
      for (var k = 1; k <= steps.length; k++) {
        var i = (current + k) % steps.length;
        if (steps[i].getAttribute(attribute) === "1") {
          return i;
        }
      }
      return -1;
    }

    function act(action) {
      if (action === "prev") {
        show(current - 1);
      } else if (action === "next") {
        show(current + 1);
      } else if (action === "first") {
        show(0);
      } else if (action === "last") {
        show(steps.length - 1);
      } else if (action === "strike") {
        show(nextWith("data-strike"));
      } else if (action === "reask") {
        show(nextWith("data-reasked"));
      } else if (action === "regret") {
        show(indexOf(body.getAttribute("data-worst")));
      } else if (action === "reveal") {
        reveal.checked = !reveal.checked;
        body.classList.toggle("reveal", reveal.checked);
      } else if (action === "prev-game" || action === "next-game") {
        var target = body.getAttribute(action === "prev-game" ? "data-prev-game" : "data-next-game");
        if (target) {
          location.href = target;
        }
      }
    }

    var keys = {
      ArrowLeft: "prev",
      ArrowRight: "next",
      ArrowUp: "prev-game",
      ArrowDown: "next-game",
      Home: "first",
      End: "last",
      s: "strike",
      r: "reask",
      v: "regret",
      t: "reveal",
    };
    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey || typing(event)) {
        return;
      }
      var action = keys[event.key];
      if (action) {
        event.preventDefault();
        act(action);
      }
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-action]"), function (button) {
      button.addEventListener("click", function () {
        act(button.getAttribute("data-action"));
      });
    });
    reveal.addEventListener("change", function () {
      body.classList.toggle("reveal", reveal.checked);
    });
    window.addEventListener("hashchange", function () {
      show(indexOf(location.hash.slice(1)));
    });
    var start = indexOf(location.hash.slice(1));
    show(start >= 0 ? start : 0);
  }

  function runPage() {
    var table = document.getElementById("games");
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    var size = parseInt(table.getAttribute("data-page-size"), 10) || 100;
    var filter = document.getElementById("filter");
    var status = document.getElementById("status-filter");
    var shown = document.getElementById("shown");
    var previous = document.getElementById("page-prev");
    var next = document.getElementById("page-next");
    var page = 0;

    function matching() {
      var query = filter.value.trim().toLowerCase();
      var wanted = status.value;
      return rows.filter(function (row) {
        return (
          (!wanted || row.getAttribute("data-status") === wanted) &&
          (!query || row.getAttribute("data-search").indexOf(query) >= 0)
        );
      });
    }

    function render() {
      var list = matching();
      var pages = Math.max(1, Math.ceil(list.length / size));
      page = Math.min(Math.max(page, 0), pages - 1);
      var first = page * size;
      var visible = new Set(list.slice(first, first + size));
      rows.forEach(function (row) {
        row.hidden = !visible.has(row);
      });
      shown.textContent = list.length
        ? shown
            .getAttribute("data-format")
            .replace("{first}", String(first + 1))
            .replace("{last}", String(Math.min(first + size, list.length)))
            .replace("{count}", String(list.length))
        : shown.getAttribute("data-none");
      previous.disabled = page === 0;
      next.disabled = page >= pages - 1;
    }

    function sortBy(header) {
      var column = header.cellIndex;
      var numeric = header.getAttribute("data-sort") === "number";
      var ascending = header.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
        cell.removeAttribute("aria-sort");
      });
      header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      // a cell's sort value: its data-value where the text is not the value ("—", "$0.0012"), else its text
      function value(row) {
        var cell = row.cells[column];
        return cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
      }
      rows.sort(function (a, b) {
        var x = value(a);
        var y = value(b);
        var order = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y, undefined, { numeric: true });
        return ascending ? order : -order;
      });
      rows.forEach(function (row) {
        tbody.appendChild(row);
      });
      page = 0;
      render();
    }

    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header) {
      if (header.hasAttribute("data-sort")) {
        header.tabIndex = 0;
        header.addEventListener("click", function () {
          sortBy(header);
        });
        header.addEventListener("keydown", function (event) {
          if (event.key === "Enter" || event.key === " ") {
            event.preventDefault();
            sortBy(header);
          }
        });
      }
    });
    filter.addEventListener("input", function () {
      page = 0;
      render();
    });
    status.addEventListener("change", function () {
      page = 0;
      render();
    });
    previous.addEventListener("click", function () {
      page -= 1;
      render();
    });
    next.addEventListener("click", function () {
      page += 1;
      render();
    });
    render();
  }

  document.addEventListener("DOMContentLoaded", function () {
    if (document.body.classList.contains("game-page")) {
      gamePage();
    } else if (document.body.classList.contains("run-page")) {
      runPage();
    }
  });
})();
