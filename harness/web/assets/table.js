// hanabi-eval table page: keys press the move buttons, the page reloads when the table changes, and the
// thinking time counts up. Plain JavaScript; it never builds markup from text.
(function () {
  "use strict";
  var body = document.body;
  var version = body.getAttribute("data-version");
  var stateUrl = body.getAttribute("data-state");
  var sent = false;

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || sent) {
      return;
    }
    var buttons = document.querySelectorAll("form.moves button[data-key]");
    for (var i = 0; i < buttons.length; i++) {
      if (buttons[i].getAttribute("data-key") === event.key) {
        event.preventDefault();
        buttons[i].click();
        return;
      }
    }
  });

  var form = document.querySelector("form.moves");
  if (form) {
    form.addEventListener("submit", function (event) {
      if (sent) {
        event.preventDefault();  // one move per turn: a second press sends nothing
      }
      sent = true;
    });
  }

  var waiting = document.getElementById("waiting");
  if (waiting) {
    var start = Date.now();
    var base = Number(waiting.getAttribute("data-seconds")) || 0;
    setInterval(function () {
      waiting.textContent = String(base + Math.floor((Date.now() - start) / 1000));
    }, 1000);
  }

  function poll() {
    fetch(stateUrl + "&since=" + encodeURIComponent(version), { cache: "no-store", credentials: "omit" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error(String(response.status));
        }
        return response.json();
      })
      .then(function (state) {
        if (String(state.version) !== version && !sent) {
          window.location.reload();
        } else {
          poll();
        }
      })
      .catch(function () {
        setTimeout(poll, 2000);  // the table is away (stopped, or restarting with resume): try again
      });
  }
  if (stateUrl) {
    poll();
  }
})();
