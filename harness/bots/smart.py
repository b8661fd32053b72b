"""The "smart" bot: a convention player in the spirit of Walton-Rivers' Piers, SmartBot and the H-group basics.

Every seat replays the public history under the clue convention in harness.bots.conventions, so a hint's meaning
("play this", "play or keep this") is shared knowledge. On its turn the bot rates every legal move:
certain plays first, then saving a teammate's critical chop card (unless a play clue keeps the next player busy
first, as SmartBot does), then play clues that let a teammate know a card is playable (good touch, no duplicates),
then discarding known-useless cards and the chop; with all three lives left it tries a hinted card that is either
playable or useless, and in the final round it takes some reasonable risks. Among hints rated alike it picks the one
that tells the teammate most, and with 2 players near the deck's end it gives a play clue before its own certain
play (the clue draws no card). With 3 or more players it gives finesses and prompts (conventions.finesse_ask) and
plays at once the card one asks of it. Near the deck's end it stalls with a harmless hint rather than discard its
chop (a little earlier while it holds tokens to spare) or even a useless card, and with 2 players it keeps a last
token for a play or save clue. It never plays an uncertain card with one life left.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from harness.bots.base import Bot, BotDecision, Policy, decide_by_ratings
from harness.bots.choice import best_index
from harness.bots.conventions import (
    TWO_SAVE_PLAYERS,
    Replay,
    ReplayCache,
    Slot,
    apply_clue,
    chop_index,
    finesse_ask,
    play_focus,
    play_targets,
    predecessor,
    public_candidates,
    replay,
    successor,
    table_sets,
)
from harness.engine.game import Observation
from harness.schema.cards import ALL_CARDS
from harness.schema.moves import MoveKind
from harness.view.builder import play_view, play_view_of
from harness.view.play_view import PlayHand, PlayMove, PlayView
from harness.view.seat_view import SeatView

# A clue that makes a card playable only after other known plays is worth this share of an immediate one.
LATER_PLAY_WEIGHT = 0.7
# Touching a card whose identity the convention then rules out plants a false belief (it can lead to a misplay), by
# player count (2 to 5). Higher with 2 players, where a miss costs more since the bot keeps its lives for the final
# round. What each tuned constant here is worth: BENCHMARKS.md section 5 (`bench/bot_paired.py --variant NAME=...`).
MISREAD_PENALTY = (0.45, 0.3, 0.3, 0.3)
# A play clue to the next player, who would otherwise discard a critical chop card: above every other move but
# answering a finesse.
PLAY_BEFORE_SAVE = 0.985
# ... but only with a token to spare for the save that must follow.
PLAY_BEFORE_SAVE_TOKENS = 2
# A hinted card that is playable or useless is tried (with all PLAY_OR_TRASH_LIVES lives left) when it is at least
# this likely to play, rated between discarding the chop and discarding a known-useless card. With only two lives a
# miss would leave one, and the final round's chances (played only with a life to spare) would be lost.
PLAY_OR_TRASH_CHANCE = 0.3
PLAY_OR_TRASH = 0.3
PLAY_OR_TRASH_LIVES = 3
# A save for a player who will not discard on their next turn (they know of a card to play or to throw).
LAZY_SAVE = 0.45
# A save clue after which the teammate's next chop card must be saved as well.
NEXT_CHOP_PENALTY = 0.02
# Right after a hint touched my chop, the new chop is discarded only if no hint is better than this (and I hold at
# least FRESH_CHOP_TOKENS tokens): the teammates have not had a turn to save it yet.
FRESH_CHOP_DISCARD = -0.15
FRESH_CHOP_TOKENS = 6
# With at most this many cards left to draw (by player count, 2 to 5), a clue that gives the next player a play goes
# before my own certain play: my card stays playable in my hand, but playing it draws a card and brings the end
# nearer, while the clue costs no card. Tuned for 2 players; at 3 it is kept to the last 3 cards.
ENDGAME_DECK = (15, 3, 0, 0)
ENDGAME_HINT = 0.89
# Among hints otherwise rated alike, the one that rules out more identities in the teammate's hand is preferred
# (its weight makes it a tie-break; without it the lower move index wins, so colour hints beat rank hints).
INFO_WEIGHT = 0.005
# A finesse (see conventions.finesse_ask) gives the finessed player's blind play and the receiver's play for one
# clue: it counts as this many plays (a plain play clue counts 1, a delayed one LATER_PLAY_WEIGHT).
FINESSE_PLAYS = 2.0
# With at most this many cards left to draw, even a known-useless card is discarded only if no hint is harmless (a
# stalling hint draws no card, so the cards still to play get more turns) or the last token is kept (LAST_TOKEN_DECK).
STALL_USELESS_DECK = 4
STALL_USELESS = -0.2
# With this few cards left to draw, a discard brings the end nearer: stall with a hint instead if possible.
STALL_DECK = 3
# ... and with up to this many (by player count, 2 to 5) while at least STALL_RICH_TOKENS info tokens are unspent:
# tokens still held when the deck runs out are wasted, so they buy turns instead. Off at 4-5 players.
STALL_RICH_DECK = (5, 5, 0, 0)
STALL_RICH_TOKENS = 4
# With at most this many cards left to draw (by player count, 2 to 5) and a single info token, a hint that makes no
# card playable or safe (a stall included) is rated LAST_TOKEN_INFO lower: the last token is kept for a play or save
# clue, and a discard comes first. Off at 3-5 players.
LAST_TOKEN_DECK = (4, 0, 0, 0)
LAST_TOKEN_INFO = 0.2
# Read once: each read of an Enum's member goes through the Enum class's __getattr__ hook.
_PLAY: Final = MoveKind.PLAY
_DISCARD: Final = MoveKind.DISCARD


# The bot's records below are plain classes, not named tuples or dataclasses: compiled (setup.py) they are
# native classes, where a named tuple's constructor and a dataclass's generated __init__ run as Python.


class OwnInfo:
    """An own card's candidates narrowed by the convention, and their chances: one OwnInfo is shared by every
    card with the same (candidates, allowed), so it must not be changed."""

    def __init__(self, candidates: dict[str, int], p_play: float, p_dead: float, p_critical: float) -> None:
        self.candidates = candidates
        self.p_play = p_play
        self.p_dead = p_dead
        self.p_critical = p_critical


class _FinesseClue:
    """A play clue the bot could give that asks the next player for the card before its focus."""

    def __init__(self, focus_card: str, blind: bool) -> None:
        self.focus_card = focus_card
        self.blind = blind  # the next player answers from their finesse position, not with a hinted card (a prompt)


class MateInfo:
    """What the bot believes a teammate knows about their own hand, from public facts."""

    def __init__(
        self,
        known_play: tuple[bool, ...],
        known_useless: tuple[bool, ...],
        chop: int | None,
        possible: frozenset[str],
        public_sizes: tuple[int, ...],
    ) -> None:
        self.known_play = known_play
        self.known_useless = known_useless
        self.chop = chop
        self.possible = possible  # the cards of which the teammate cannot rule out every copy by looking around
        self.public_sizes = public_sizes  # how many identities each card's public candidates hold (see _clue_effect)


class Rule(StrEnum):
    """Which of the bot's rules rated a move. Tests and tools read this, not the wording of the reason."""

    # plays
    ANSWER_FINESSE = "play the card a finesse or prompt asks of me"
    CERTAIN_PLAY = "play a card known to be playable"
    NO_GAMBLE = "no uncertain play with one life left"
    FINAL_ROUND_CHANCE = "a chance of a play in the final round"
    PLAY_OR_TRASH = "try a hinted card that is playable or useless"
    GAMBLE = "an uncertain play"
    # discards
    USELESS_NEAR_END = "a useless card, though a stalling hint would be better this near the end"
    USELESS = "discard a useless card"
    HINTED = "discard a hinted card"
    CHOP_NEAR_END = "the chop, though a stalling hint would be better this near the end"
    FRESH_CHOP = "a chop nobody has had a turn to save yet"
    CHOP = "discard the chop"
    NOT_CHOP = "discard an unhinted card that is not the chop"
    # hints
    MISLEADING_HINT = "a hint that would mislead"
    FINESSE = "a finesse: the next player plays blind, then the receiver"
    PROMPT = "a prompt: the next player plays a hinted card, then the receiver"
    SAVE = "save a critical chop card"
    PLAY_BEFORE_SAVE = "a play clue that keeps the next player from discarding a critical chop"
    ENDGAME_CLUE = "a play clue before my own play, near the end"
    PLAY_CLUE = "a play clue"
    LATER_PLAY_CLUE = "a clue for a card playable after the known plays"
    WASTED_HINT = "a hint to a player with no turn left"
    INFO_HINT = "a hint that makes no card playable or safe"


class Rating:
    """One legal move's rating, the rule that gave it, and the bot's reason in words."""

    def __init__(self, value: float, rule: Rule, reason: str) -> None:
        self.value = value
        self.rule = rule
        self.reason = reason


class _Clue:
    """A hint the bot could give, as its receiver would read it under the convention."""

    def __init__(
        self,
        player: int,
        offset: int,
        what: str,
        hand: PlayHand,
        mate: MateInfo,
        before: list[Slot],
        after: list[Slot],
        targets: frozenset[str],
        asked: _FinesseClue | None,
        in_time: bool,
    ) -> None:
        self.player = player
        self.offset = offset
        self.what = what  # as reasons name it: "R", "3s"
        self.hand = hand
        self.mate = mate
        self.before = before
        self.after = after
        self.targets = targets  # what the focus of a play clue to this player may be (with a finesse's focus)
        self.asked = asked
        self.in_time = in_time  # the receiver has a turn before the game ends


class _ClueEffect:
    """What a clue does to the receiver's hand, card by card."""

    def __init__(self) -> None:
        self.new_plays: list[str] = []  # cards it makes known to be playable
        self.later_plays: list[str] = []  # cards it marks as plays after the known ones
        self.good_new = 0  # newly touched cards worth touching
        self.bad_new = 0  # newly touched cards that are useless or duplicated
        self.misread = 0  # newly touched cards whose identity the convention then rules out
        self.saved: str | None = None  # the critical chop card it saves
        self.ruled_out = 0  # public candidate identities it rules out, over the receiver's hand
        self.misleads: str | None = None  # why it would mislead the receiver (the reason of its rating)


def _describe_candidates(cands: list[str], fireworks: dict[str, int]) -> str:
    if len(cands) == 1:
        name = cands[0]
        height = fireworks[name[0]]
        return f"{name} on {name[0]}{height}" if height else f"{name} on an empty {name[0]} firework"
    return "it can only be " + ", ".join(sorted(cands)) + ", all playable now"


def _counted_candidates(public: frozenset[str], slot: Slot, possible: frozenset[str]) -> frozenset[str]:
    """A player's candidates for a card: hints and convention (`public`, the slot's public_candidates), minus
    cards they can see are gone."""
    cands = public & possible
    if not cands and slot.allowed is not None:
        cands = public_candidates(slot.colors, slot.ranks, None) & possible
    return cands


class SmartBot(Bot):
    name = "smart"
    description = (
        "Convention player (recommended default): plays cards known to be playable, saves critical chop cards, "
        "gives good-touch play clues read by a shared focus convention, discards useless cards then the chop."
    )

    def decide(self, view: SeatView) -> BotDecision:
        ratings = self.rate(view)
        return decide_by_ratings([r.value for r in ratings], [r.reason for r in ratings])

    def rate(self, view: SeatView) -> list[Rating]:
        """Every legal move's rating, with the rule that gave it and the reason, in view.legal_moves order."""
        return _Turn(play_view_of(view)).rate()

    def policy(self) -> Policy:
        return _Playing()


class _Playing:
    """SmartBot over one game's seats: each seat's replay of the history continues from its last view."""

    def __init__(self) -> None:
        self._replays: dict[int, ReplayCache] = {}

    def choose(self, obs: Observation) -> int:
        view = play_view(obs)
        cache = self._replays.get(view.seat)
        if cache is None:
            cache = self._replays[view.seat] = ReplayCache()
        return _Turn(view, cache.replay(view)).choose()


class _Turn:
    """The facts one decision needs, computed once from the view."""

    def __init__(self, view: PlayView, replayed: Replay | None = None) -> None:
        self.view = view
        self.fireworks = view.fireworks
        self.table = table_sets(view.table, view.num_players)
        self.dead = self.table.dead
        self.playable = self.table.playable
        self.critical = self.table.critical
        self.replay = replay(view) if replayed is None else replayed
        self.slots = self.replay.hands
        self._target_cache: dict[int, frozenset[str]] = {}
        self.own = self._own_infos()
        self.own_chop = chop_index(self.slots[view.seat])
        # Copies of each card in the other hands, and of those touched by hints: every card has an entry.
        visible, touched_visible = dict.fromkeys(ALL_CARDS, 0), dict.fromkeys(ALL_CARDS, 0)
        for hand in view.others:
            slots = self.slots[hand.player]
            for c in hand.cards:
                visible[c.card] += 1
                if slots[c.index].touched:
                    touched_visible[c.card] += 1
        self.visible, self.touched_visible = visible, touched_visible
        base = dict(view.unseen)  # the full deck less the discards, the fireworks and the cards in sight
        # Teammates see my hand: a card of mine I know for certain is no candidate for theirs. (Without this
        # the bot took a clue for harmless when the teammate, seeing that card, would read it as "play".)
        for info in self.own:
            if len(info.candidates) == 1:
                (name,) = info.candidates
                base[name] = base.get(name, 0) - 1
        in_base = frozenset(name for name, copies in base.items() if copies > 0)
        self.mates = {hand.player: self._mate_info(hand, base, in_base) for hand in view.others}
        self.hands = {hand.player: hand for hand in view.others}
        # In the final round a teammate can still act on a hint only if their turn comes before the game ends.
        self.turns_after_me = None if view.turns_left is None else view.turns_left - 1

    # ---- facts -------------------------------------------------------------------------------------------------

    def _own_infos(self) -> list[OwnInfo]:
        """My own cards, oldest first."""
        # Unhinted cards share the view's candidates dict and their slots' allowed set: their odds are counted once.
        # (Keyed by identity: every key object lives in the view or the replay through the loop.)
        odds_of: dict[tuple[int, int], OwnInfo] = {}
        infos = []
        for candidates, slot in zip(self.view.own_candidates, self.slots[self.view.seat], strict=True):
            key = (id(candidates), id(slot.allowed))
            info = odds_of.get(key)
            if info is None:
                info = odds_of[key] = self._odds(candidates, slot.allowed)
            infos.append(info)
        return infos

    def _odds(self, candidates: dict[str, int], allowed: frozenset[str] | None) -> OwnInfo:
        cands = candidates  # only read, never changed
        if allowed is not None:
            narrowed = {name: n for name, n in cands.items() if name in allowed}
            if narrowed:
                cands = narrowed
        playable, dead, critical = self.playable, self.dead, self.critical
        total = plays = deads = criticals = 0  # copies, counted in one pass
        for name, n in cands.items():
            total += n
            if name in playable:
                plays += n
            if name in dead:
                deads += n
            if name in critical:
                criticals += n
        total = total or 1
        return OwnInfo(cands, plays / total, deads / total, criticals / total)

    def _mate_info(self, hand: PlayHand, base: dict[str, int], in_base: frozenset[str]) -> MateInfo:
        # The cards the teammate cannot rule out: those with copies left besides theirs, and those they hold.
        held: dict[str, int] = {}
        for c in hand.cards:
            held[c.card] = held.get(c.card, 0) + 1
        possible = in_base | {name for name, copies in held.items() if base.get(name, 0) + copies > 0}
        slots = self.slots[hand.player]
        # A card with more public candidates than a set plus the identities `possible` leaves out is not known to be
        # in that set (see _clue_effect): no need to build its counted candidates.
        ruled_out = len(ALL_CARDS) - len(possible)
        bound = max(len(self.playable), len(self.dead)) + ruled_out
        known_play, known_useless, public_sizes = [], [], []
        for slot in slots:
            public = public_candidates(slot.colors, slot.ranks, slot.allowed)
            if len(public) > bound:
                known_play.append(False)
                known_useless.append(False)
            else:
                cands = _counted_candidates(public, slot, possible)
                known_play.append(bool(cands) and cands <= self.playable)
                known_useless.append(bool(cands) and cands <= self.dead)
            public_sizes.append(len(public))
        return MateInfo(tuple(known_play), tuple(known_useless), chop_index(slots), possible, tuple(public_sizes))

    def _needs_save(self, hand: PlayHand, index: int, slots: list[Slot] | None = None) -> bool:
        c = hand.cards[index]
        if c.useless or (slots or self.slots[hand.player])[index].touched:
            return False
        if c.critical:
            return True
        return self.view.num_players in TWO_SAVE_PLAYERS and c.card[1] == "2" and self.visible[c.card] == 1

    def _about_to_lose_chop(self, hand: PlayHand, mate: MateInfo) -> bool:
        """Whether this teammate will discard a chop card that must be saved, having nothing better to do."""
        return (
            mate.chop is not None
            and not any(mate.known_play)
            and not any(mate.known_useless)
            and self._needs_save(hand, mate.chop)
        )

    def _unlocks(self, name: str) -> bool:
        """Whether some teammate holds a touched copy of the card right after `name`."""
        following = successor(name)
        return following is not None and self.touched_visible[following] > 0

    # ---- rating moves ------------------------------------------------------------------------------------------

    def rate(self) -> list[Rating]:
        ratings = []
        for legal in self.view.legal_moves:
            if legal.kind is _PLAY and legal.card_index is not None:
                ratings.append(self._rate_play(legal.card_index))
            elif legal.kind is _DISCARD and legal.card_index is not None:
                ratings.append(self._rate_discard(legal.card_index))
            else:
                ratings.append(self._rate_hint(legal))
        return ratings

    def choose(self) -> int:
        return best_index([rating.value for rating in self.rate()])

    def _rate_play(self, index: int) -> Rating:
        info, slot = self.own[index], self.slots[self.view.seat][index]
        view = self.view
        if slot.finesse and info.p_play == 1.0:
            # Normally one candidate; several (all playable) if what I can see rules out the asked card itself.
            name = " or ".join(sorted(info.candidates))
            return Rating(
                1.0,
                Rule.ANSWER_FINESSE,
                f"The last hint pointed at a card that only {name} makes playable, and I must hold it as card "
                f"{index}, so I play it at once.",
            )
        if info.p_play == 1.0:
            cands = sorted(info.candidates)
            rating = 0.9
            if any(self._unlocks(name) for name in cands):
                rating += 0.05
            if all(name[1] == "5" for name in cands) and view.info_tokens < view.max_info_tokens:
                rating += 0.03
            rating -= 0.01 * min(int(name[1]) for name in cands) / 5
            return Rating(
                rating,
                Rule.CERTAIN_PLAY,
                f"Card {index} is known to be playable ({_describe_candidates(cands, self.fireworks)}).",
            )
        chance = f"card {index} is playable with probability {info.p_play:.2f}"
        if view.life_tokens <= 1:
            # Below every other kind of move: with one life left only a certain card is ever played.
            return Rating(
                -1.0 + 0.02 * info.p_play,
                Rule.NO_GAMBLE,
                f"With one life left I play only certain cards, and {chance}.",
            )
        if view.turns_left is not None and info.p_play > 0:
            return Rating(
                0.5 + 0.5 * info.p_play,
                Rule.FINAL_ROUND_CHANCE,
                f"The game is in its final round and {chance}; with {view.life_tokens} lives left the risk "
                "costs nothing.",
            )
        if (
            slot.touched
            and view.life_tokens >= PLAY_OR_TRASH_LIVES
            and info.p_play >= PLAY_OR_TRASH_CHANCE
            and all(name in self.playable or name in self.dead for name in info.candidates)
        ):
            # A hinted card that is playable or already useless (say a 1 whose other candidates were played): a miss
            # loses nothing but a spare life, and it never wastes a card that could still score.
            return Rating(
                PLAY_OR_TRASH,
                Rule.PLAY_OR_TRASH,
                f"Card {index} is either playable or useless ({chance}); with {view.life_tokens} lives left I "
                "try it.",
            )
        return Rating(
            -0.35 - 0.5 * (1 - info.p_play) - 0.1 * info.p_critical,
            Rule.GAMBLE,
            f"Every other move looks worse, but this is a gamble: {chance}, and a miss costs a life.",
        )

    def _rate_discard(self, index: int) -> Rating:
        info = self.own[index]
        view = self.view
        token_need = 0.1 * (1 - view.info_tokens / view.max_info_tokens)
        if info.p_dead == 1.0 and 0 < view.deck_size <= STALL_USELESS_DECK and view.info_tokens > 0:
            return Rating(
                STALL_USELESS + token_need,
                Rule.USELESS_NEAR_END,
                f"Card {index} can no longer score, but only {view.deck_size} cards are left in the deck: I would "
                f"rather stall with a hint than draw towards the end, but {self._why_not_stall()}.",
            )
        if info.p_dead == 1.0:
            return Rating(
                0.4 + token_need,
                Rule.USELESS,
                f"Card {index} can no longer score, so discarding it costs nothing.",
            )
        if self.slots[view.seat][index].touched:
            return Rating(
                -0.45 - 0.4 * info.p_critical - 0.1 * info.p_play + token_need,
                Rule.HINTED,
                f"Every card I hold was hinted as useful, so any discard wastes a hint; card {index} is the "
                "least likely to be needed.",
            )
        if index == self.own_chop and self._stall_rather_than_discard():
            return Rating(
                -0.25 + token_need,
                Rule.CHOP_NEAR_END,
                f"Only {view.deck_size} cards are left in the deck, so I would rather stall with a hint than draw "
                f"towards the end, but {self._why_not_stall()}: I discard my chop, card {index}.",
            )
        if (
            index == self.own_chop
            and view.info_tokens >= FRESH_CHOP_TOKENS
            and self.replay.chop_clued.get(view.seat) == len(view.history) - 1
        ):
            return Rating(
                FRESH_CHOP_DISCARD,
                Rule.FRESH_CHOP,
                f"The last hint touched my old chop, so nobody has yet had a turn to save my new chop, card "
                f"{index}; I would rather give a hint than discard it, but no hint is harmless.",
            )
        if index == self.own_chop:
            # Teammates watch the chop and save what must not go, so it is the safest unknown card to discard.
            risk = 0.1 * info.p_critical + 0.1 * info.p_play
            return Rating(
                0.25 - risk + token_need,
                Rule.CHOP,
                f"Nothing is certainly playable and no hint is worth giving, so I discard my chop, card {index} "
                "(my oldest unhinted card).",
            )
        risk = 0.25 * info.p_critical + 0.1 * info.p_play
        return Rating(
            -0.6 - risk + token_need,
            Rule.NOT_CHOP,
            f"Card {index} is unhinted but not my chop; teammates protect only the chop, so it goes first.",
        )

    def _stall_rather_than_discard(self) -> bool:
        """Whether the deck is so near its end that a harmless hint beats discarding the chop."""
        view = self.view
        if view.deck_size == 0 or view.info_tokens == 0:
            return False
        rich = view.info_tokens >= STALL_RICH_TOKENS and view.deck_size <= STALL_RICH_DECK[view.num_players - 2]
        return view.deck_size <= STALL_DECK or rich

    def _keeps_last_token(self) -> bool:
        """Whether a hint that makes no card playable or safe would spend a last token better kept near the end."""
        view = self.view
        return view.info_tokens == 1 and 0 < view.deck_size <= LAST_TOKEN_DECK[view.num_players - 2]

    def _why_not_stall(self) -> str:
        """Why a discard goes before a stalling hint, in the bot's explanation."""
        if self._keeps_last_token():
            return "I keep my last info token for a play or save clue"
        return "no hint is harmless"

    def _targets(self, player: int) -> frozenset[str]:
        """What the focus of my play clue to `player` may be under the convention (see play_targets)."""
        if player not in self._target_cache:
            self._target_cache[player] = play_targets(
                self.slots, self.replay.identity, self.view.seat, player, self.table
            )
        return self._target_cache[player]

    def _finesse(self, player: int, touches: tuple[int, ...], color: str | None) -> _FinesseClue | None:
        """If a play clue touching `touches` in `player`'s hand asks the next player to play the card before its
        focus (see conventions.finesse_ask) and they hold it where they will look: what the clue does."""
        view = self.view
        if view.num_players < 3 or player == (view.seat + 1) % view.num_players or view.deck_size == 0:
            return None
        focus = play_focus(self.slots[player], touches)
        if focus is None:
            return None
        name = self.hands[player].cards[focus].card
        if self.touched_visible[name] or name in self._targets(player):
            return None
        ask = finesse_ask(self.slots, self.replay.identity, view.seat, player, touches, color, name, self.table)
        if ask is None or self.hands[ask.player].cards[ask.position].card != ask.card:
            return None
        blind = not self.slots[ask.player][ask.position].touched
        if self.touched_visible[ask.card] > (0 if blind else 1):
            return None  # another hinted copy is waiting: one of the two would be wasted
        return _FinesseClue(name, blind)

    def _rate_hint(self, legal: PlayMove) -> Rating:
        clue = self._read_clue(legal)
        effect = self._clue_effect(clue)
        if effect.misleads is not None:
            return Rating(-0.8, Rule.MISLEADING_HINT, effect.misleads)
        if clue.asked is not None:
            effect.later_plays = [name for name in effect.later_plays if name != clue.asked.focus_card]
        penalty = self._clue_penalty(clue, effect)
        plays = len(effect.new_plays) + LATER_PLAY_WEIGHT * len(effect.later_plays)
        if clue.asked is not None and effect.saved is None and clue.in_time:
            return self._rate_finesse(clue, clue.asked, effect, plays + FINESSE_PLAYS, penalty)
        if effect.saved is not None and clue.in_time:
            return self._rate_save(clue, effect.saved, plays, penalty)
        if plays and clue.in_time:
            return self._rate_play_clue(clue, effect, plays, penalty)
        return self._rate_info_hint(clue, effect, penalty)

    def _read_clue(self, legal: PlayMove) -> _Clue:
        """A hint as its receiver would read it: the slots after it, under the convention (finesses included)."""
        assert legal.target_player is not None and legal.target_offset is not None
        player = legal.target_player
        slots = self.slots[player]
        targets = self._targets(player)
        asked = self._finesse(player, legal.touches, legal.color)
        if asked is not None:
            targets = targets | {asked.focus_card}
        after = apply_clue(slots, legal.touches, legal.color, legal.rank, self.table, lambda: targets)
        return _Clue(
            player=player,
            offset=legal.target_offset,
            what=f"{legal.color}" if legal.color else f"{legal.rank}s",
            hand=self.hands[player],
            mate=self.mates[player],
            before=slots,
            after=after,
            targets=targets,
            asked=asked,
            in_time=self.turns_after_me is None or legal.target_offset <= self.turns_after_me,
        )

    def _clue_effect(self, clue: _Clue) -> _ClueEffect:
        """What a clue does to each card of the receiver's hand; stops at the first card it would mislead about."""
        effect = _ClueEffect()
        touched_before: dict[str, int] = {}
        after, before, mate = clue.after, clue.before, clue.mate
        known_play, possible, playable = mate.known_play, mate.possible, self.playable
        # A card with more public candidates than this keeps one that is neither playable nor ruled out by the cards
        # the player sees (the identities `possible` leaves out): they cannot know it is playable.
        bound = len(playable) + len(ALL_CARDS) - len(possible)
        for c in clue.hand.cards:
            j = c.index
            slot, old = after[j], before[j]
            unchanged = slot is old  # the hint tells the player nothing new about this card (apply_clue kept it)
            cands: frozenset[str] | None = None  # the player's candidates for the card, built only when needed
            if unchanged:
                knows_play = known_play[j]
            else:
                public = public_candidates(slot.colors, slot.ranks, slot.allowed)
                effect.ruled_out += mate.public_sizes[j] - len(public)
                if len(public) > bound:
                    knows_play = False  # without building their candidates, which here are the most numerous
                else:
                    cands = _counted_candidates(public, slot, possible)
                    knows_play = bool(cands) and cands <= playable
            if knows_play and not c.playable:
                effect.misleads = (
                    f"Hinting {clue.what} to player {clue.player} would make them think card {j} ({c.card}) is "
                    "playable."
                )
                return effect
            if unchanged:
                continue  # nothing else below can hold for a card the hint leaves as it was
            newly = slot.touched and not old.touched
            duplicate = self.touched_visible[c.card] - (1 if old.touched else 0) > 0
            if knows_play and not known_play[j]:
                if duplicate:
                    effect.bad_new += 1  # another touched copy will be played first: this one would be wasted
                else:
                    effect.new_plays.append(c.card)
            elif slot.play and newly and not knows_play:
                if c.card not in clue.targets:
                    effect.misleads = (
                        f"Hinting {clue.what} to player {clue.player} would point at card {j} ({c.card}) as a "
                        "coming play, which it is not."
                    )
                    return effect
                if cands is None:
                    cands = _counted_candidates(public, slot, possible)
                if not duplicate and cands <= clue.targets:
                    effect.later_plays.append(c.card)
            if newly:
                touched_before[c.card] = touched_before.get(c.card, 0) + 1
                self._count_new_touch(clue, effect, j, touched_before[c.card])
        return effect

    def _count_new_touch(self, clue: _Clue, effect: _ClueEffect, j: int, copies_touched: int) -> None:
        """Tally a card the clue touches for the first time (`copies_touched`: of its name, by this clue so far)."""
        c, slot = clue.hand.cards[j], clue.after[j]
        if slot.allowed is not None and c.card not in slot.allowed:
            effect.misread += 1
        elif c.useless or self.touched_visible[c.card] > 0 or copies_touched > 1:
            effect.bad_new += 1
        else:
            effect.good_new += 1
        if j == clue.mate.chop and self._needs_save(clue.hand, j):
            effect.saved = c.card

    def _clue_penalty(self, clue: _Clue, effect: _ClueEffect) -> float:
        """What a clue's bad touches cost, less a tie-break for how much it tells (INFO_WEIGHT)."""
        misread_cost = MISREAD_PENALTY[self.view.num_players - 2] * effect.misread
        ruled_out = effect.ruled_out / (25 * len(clue.after))  # the share of the hand's identities (0 to 1)
        return 0.12 * effect.bad_new + misread_cost - INFO_WEIGHT * ruled_out

    def _rate_finesse(
        self, clue: _Clue, asked: _FinesseClue, effect: _ClueEffect, plays: float, penalty: float
    ) -> Rating:
        view = self.view
        rule, where = (Rule.FINESSE, "finesse position") if asked.blind else (Rule.PROMPT, "hinted cards")
        focus_card = asked.focus_card
        return Rating(
            0.5 + 0.1 * min(plays, 3) + 0.02 * effect.good_new - penalty,
            rule,
            f"Hinting {clue.what} to player {clue.player} points at {focus_card}, which only the "
            f"{predecessor(focus_card)} in player {(view.seat + 1) % view.num_players}'s {where} makes playable: "
            f"they play it first, then player {clue.player} plays theirs.",
        )

    def _rate_save(self, clue: _Clue, saved: str, plays: float, penalty: float) -> Rating:
        mate = clue.mate
        will_discard = not any(mate.known_play) and not any(mate.known_useless)
        if will_discard:
            urgency = 0.17 if clue.offset == 1 else 0.05
            rating = 0.8 + urgency + 0.02 * plays - penalty
        else:
            # The player has something better to do than discard next turn: the save can wait (the chop may get
            # touched by a play clue first), and a play clue now is worth more.
            rating = LAZY_SAVE + 0.1 * min(plays, 3) - penalty
        new_chop = chop_index(clue.after)
        if new_chop is not None and self._needs_save(clue.hand, new_chop, clue.after):
            # The next card to go is also one to keep: a clue that touches both saves more.
            rating -= NEXT_CHOP_PENALTY
        return Rating(
            rating,
            Rule.SAVE,
            f"Player {clue.player}'s chop card {saved} must not be discarded; hinting {clue.what} saves it.",
        )

    def _rate_play_clue(self, clue: _Clue, effect: _ClueEffect, plays: float, penalty: float) -> Rating:
        rating = 0.5 + 0.1 * min(plays, 3) + 0.02 * effect.good_new - penalty
        if (
            effect.new_plays
            and clue.offset == 1
            and self.view.info_tokens >= PLAY_BEFORE_SAVE_TOKENS
            and self._about_to_lose_chop(clue.hand, clue.mate)
        ):
            return self._rate_play_before_save(clue, effect.new_plays, penalty)
        if not any(clue.mate.known_play):
            rating += 0.05
        if clue.offset == 1:
            rating += 0.01
            if 0 < self.view.deck_size <= ENDGAME_DECK[self.view.num_players - 2]:
                shown = ", ".join(effect.new_plays + effect.later_plays)
                return Rating(
                    ENDGAME_HINT + 0.1 * min(plays, 3) / 3 - penalty,
                    Rule.ENDGAME_CLUE,
                    f"Only {self.view.deck_size} cards are left to draw: hinting {clue.what} to player "
                    f"{clue.player} (for {shown}) costs no card, so it goes before any play of mine.",
                )
        if effect.new_plays:
            shown = ", ".join(effect.new_plays)
            return Rating(
                rating,
                Rule.PLAY_CLUE,
                f"Hinting {clue.what} to player {clue.player} shows them they can play {shown}.",
            )
        shown = ", ".join(effect.later_plays)
        return Rating(
            rating,
            Rule.LATER_PLAY_CLUE,
            f"Hinting {clue.what} to player {clue.player} tells them {shown} will be playable once the cards "
            "already known to be playable are played.",
        )

    def _rate_play_before_save(self, clue: _Clue, new_plays: list[str], penalty: float) -> Rating:
        # SmartBot's order: a clue that gives the next player a play keeps them from discarding this turn, and the
        # save can follow; it beats both the save and my own certain play.
        chop_card = clue.hand.cards[clue.mate.chop or 0].card
        shown = ", ".join(new_plays)
        return Rating(
            PLAY_BEFORE_SAVE + 0.005 * min(len(new_plays), 2) - penalty,
            Rule.PLAY_BEFORE_SAVE,
            f"Player {clue.player} would discard their chop card {chop_card} next, which must be saved; hinting "
            f"{clue.what} shows them they can play {shown} instead, and the save can follow.",
        )

    def _rate_info_hint(self, clue: _Clue, effect: _ClueEffect, penalty: float) -> Rating:
        rating = -0.1 + 0.03 * effect.good_new - penalty
        if self._keeps_last_token():
            rating -= LAST_TOKEN_INFO
        if not clue.in_time:
            return Rating(
                rating - 0.1,
                Rule.WASTED_HINT,
                f"Player {clue.player} gets no further turn, so hinting them {clue.what} is wasted.",
            )
        return Rating(
            rating,
            Rule.INFO_HINT,
            f"Hinting {clue.what} to player {clue.player} gives information but makes no card playable or safe.",
        )
