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

from collections import Counter
from dataclasses import dataclass

from harness.bots.base import Bot, BotDecision, Policy, best_index, decide_by_ratings
from harness.bots.conventions import (
    TWO_SAVE_PLAYERS,
    Replay,
    ReplayCache,
    Slot,
    apply_clue,
    card_sets,
    chop_index,
    finesse_ask,
    play_focus,
    play_targets,
    predecessor,
    public_candidates,
    replay,
)
from harness.schema.cards import COLORS, card, full_deck_counts, parse_card
from harness.schema.moves import MoveKind
from harness.view.seat_view import LegalMove, OtherHand, SeatView

# A clue that makes a card playable only after other known plays is worth this share of an immediate one.
LATER_PLAY_WEIGHT = 0.7
# Touching a card whose identity the convention then rules out plants a false belief (it can lead to a misplay), by
# player count (2 to 5). With 2 players 0.45 beats 0.3 by 0.04 points over seeds 0-4999 (a miss costs more since
# the bot keeps its lives for the final round); at 3 players it made no difference (-0.02, within noise).
MISREAD_PENALTY = (0.45, 0.3, 0.3, 0.3)
# A play clue to the next player, who would otherwise discard a critical chop card: above every other move but
# answering a finesse.
PLAY_BEFORE_SAVE = 0.985
# ... but only with a token to spare for the save that must follow.
PLAY_BEFORE_SAVE_TOKENS = 2
# A hinted card that is playable or useless is tried (with all PLAY_OR_TRASH_LIVES lives left) when it is at least
# this likely to play, rated between discarding the chop and discarding a known-useless card. With only two lives a
# miss would leave one, and the final round's chances (played only with a life to spare) would be lost: trying it
# with two lives as well costs 0.04 points at 2 players over seeds 0-4999 and 0.04 at 3 over seeds 0-1999.
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
# nearer, while the clue costs no card. It helps with 2 players; at 3 it costs points beyond 3 cards (BENCHMARKS.md).
ENDGAME_DECK = (15, 3, 0, 0)
ENDGAME_HINT = 0.89
# Among hints otherwise rated alike, the one that rules out more identities in the teammate's hand is preferred
# (its weight makes it a tie-break: +0.29 points at 2 players, +0.07 at 3 over 1000 seeds, against the move order).
INFO_WEIGHT = 0.005
# A finesse (see conventions.finesse_ask) gives the finessed player's blind play and the receiver's play for one
# clue: it counts as this many plays (a plain play clue counts 1, a delayed one LATER_PLAY_WEIGHT).
FINESSE_PLAYS = 2.0
# With at most this many cards left to draw, even a known-useless card is discarded only if no hint is harmless (a
# stalling hint draws no card, so the cards still to play get more turns) or the last token is kept (LAST_TOKEN_DECK):
# +0.14 points at 3 players and +0.05 at 2 over seeds 0-999 (BENCHMARKS.md).
STALL_USELESS_DECK = 4
STALL_USELESS = -0.2
# With this few cards left to draw, a discard brings the end nearer: stall with a hint instead if possible.
STALL_DECK = 3
# ... and with up to this many (by player count, 2 to 5) while at least STALL_RICH_TOKENS info tokens are unspent:
# tokens still held when the deck runs out are wasted (about 4 on average at 2 players), so they buy turns instead.
# Chosen on seeds 0-1999 among seven settings; then 2 players +0.018 (s.e. 0.006) over seeds 2000-4999 and +0.021
# (0.005) over 5000-9999, 3 players +0.020 (0.008) over seeds 0-1999. No change at 4-5 players, so it is off there.
STALL_RICH_DECK = (5, 5, 0, 0)
STALL_RICH_TOKENS = 4
# With at most this many cards left to draw (by player count, 2 to 5) and a single info token, a hint that makes no
# card playable or safe (a stall included) is rated LAST_TOKEN_INFO lower: the last token is kept for a play or save
# clue, and a discard comes first. +0.009 points (s.e. 0.004) at 2 players over seeds 0-4999 and +0.013 (0.004) over
# seeds 5000-9999; at 3 players it cost 0.035 (s.e. 0.009) over seeds 0-1999, so it is off there.
LAST_TOKEN_DECK = (4, 0, 0, 0)
LAST_TOKEN_INFO = 0.2


@dataclass(frozen=True, slots=True)
class OwnInfo:
    """One of the bot's own cards: its candidates narrowed by the convention, and derived probabilities."""

    candidates: dict[str, int]
    slot: Slot
    p_play: float
    p_dead: float
    p_critical: float


@dataclass(frozen=True, slots=True)
class _FinesseClue:
    """A play clue the bot could give that asks the next player for the card before its focus."""

    focus_card: str
    blind: bool  # the next player answers from their finesse position, not with a hinted card (a prompt)


@dataclass(frozen=True, slots=True)
class MateInfo:
    """What the bot believes a teammate knows about their own hand, from public facts."""

    known_play: tuple[bool, ...]
    known_useless: tuple[bool, ...]
    chop: int | None
    remaining: Counter[str]  # copies of each card the teammate cannot rule out by looking around


def _describe_candidates(cands: list[str], fireworks: dict[str, int]) -> str:
    if len(cands) == 1:
        name = cands[0]
        height = fireworks[name[0]]
        return f"{name} on {name[0]}{height}" if height else f"{name} on an empty {name[0]} firework"
    return "it can only be " + ", ".join(sorted(cands)) + ", all playable now"


def _counted_candidates(
    colors: frozenset[str], ranks: frozenset[int], allowed: frozenset[str] | None, remaining: Counter[str]
) -> list[str]:
    """A player's candidates for a card: hints and convention, minus cards they can see are gone."""
    cands = [name for name in public_candidates(colors, ranks, allowed) if remaining[name] > 0]
    if not cands and allowed is not None:
        cands = [name for name in public_candidates(colors, ranks, None) if remaining[name] > 0]
    return cands


class SmartBot(Bot):
    name = "smart"
    description = (
        "Convention player (recommended default): plays cards known to be playable, saves critical chop cards, "
        "gives good-touch play clues read by a shared focus convention, discards useless cards then the chop."
    )

    def decide(self, view: SeatView) -> BotDecision:
        return _Turn(view).decide()

    def policy(self) -> Policy:
        return _Playing()


class _Playing:
    """SmartBot over one game's seats: each seat's replay of the history continues from its last view."""

    def __init__(self) -> None:
        self._replays: dict[int, ReplayCache] = {}

    def choose(self, view: SeatView) -> int:
        cache = self._replays.get(view.seat)
        if cache is None:
            cache = self._replays[view.seat] = ReplayCache()
        return _Turn(view, cache.replay(view)).choose()


class _Turn:
    """The facts one decision needs, computed once from the view."""

    def __init__(self, view: SeatView, replayed: Replay | None = None) -> None:
        self.view = view
        self.fireworks = view.fireworks
        self.discards: Counter[str] = Counter(view.discard_counts)
        self.table = card_sets(self.fireworks, self.discards, view.num_players)
        self.dead = self.table.dead
        self.playable = self.table.playable
        self.critical = self.table.critical
        self.replay = replay(view) if replayed is None else replayed
        self.slots = self.replay.hands
        self._target_cache: dict[int, frozenset[str]] = {}
        self.own = [self._own_info(i) for i in range(len(view.own_hand))]
        self.own_chop = chop_index(self.slots[view.seat])
        self.visible: Counter[str] = Counter(c.card for hand in view.others for c in hand.cards)
        self.touched_visible: Counter[str] = Counter(
            c.card for hand in view.others for c in hand.cards if self.slots[hand.player][c.index].touched
        )
        base = full_deck_counts()
        base.subtract(self.discards)
        for color in COLORS:
            for rank in range(1, self.fireworks[color] + 1):
                base[card(color, rank)] -= 1
        base.subtract(self.visible)
        # Teammates see my hand: a card of mine I know for certain is no candidate for theirs. (Without this the bot
        # took a clue for harmless when the teammate, seeing that card, would read it as "play": +0.03 points at 2
        # players over seeds 0-4999.)
        base.subtract(next(iter(info.candidates)) for info in self.own if len(info.candidates) == 1)
        self.mates = {hand.player: self._mate_info(hand, base) for hand in view.others}
        # In the final round a teammate can still act on a hint only if their turn comes before the game ends.
        self.turns_after_me = None if view.turns_left is None else view.turns_left - 1

    # ---- facts -------------------------------------------------------------------------------------------------

    def _own_info(self, index: int) -> OwnInfo:
        own = self.view.own_hand[index]
        slot = self.slots[self.view.seat][index]
        cands = dict(own.candidates)
        if slot.allowed is not None:
            narrowed = {name: n for name, n in cands.items() if name in slot.allowed}
            if narrowed:
                cands = narrowed
        total = sum(cands.values()) or 1
        p_play = sum(n for name, n in cands.items() if name in self.playable) / total
        p_dead = sum(n for name, n in cands.items() if name in self.dead) / total
        p_critical = sum(n for name, n in cands.items() if name in self.critical) / total
        return OwnInfo(cands, slot, p_play, p_dead, p_critical)

    def _mate_info(self, hand: OtherHand, base: Counter[str]) -> MateInfo:
        remaining = base.copy()
        remaining.update(c.card for c in hand.cards)
        slots = self.slots[hand.player]
        known_play, known_useless = [], []
        for slot in slots:
            cands = _counted_candidates(slot.colors, slot.ranks, slot.allowed, remaining)
            known_play.append(bool(cands) and all(x in self.playable for x in cands))
            known_useless.append(bool(cands) and all(x in self.dead for x in cands))
        return MateInfo(tuple(known_play), tuple(known_useless), chop_index(slots), remaining)

    def _needs_save(self, hand: OtherHand, index: int, slots: list[Slot] | None = None) -> bool:
        c = hand.cards[index]
        if c.useless or (slots or self.slots[hand.player])[index].touched:
            return False
        if c.critical:
            return True
        return self.view.num_players in TWO_SAVE_PLAYERS and c.card[1] == "2" and self.visible[c.card] == 1

    def _about_to_lose_chop(self, hand: OtherHand, mate: MateInfo) -> bool:
        """Whether this teammate will discard a chop card that must be saved, having nothing better to do."""
        return (
            mate.chop is not None
            and not any(mate.known_play)
            and not any(mate.known_useless)
            and self._needs_save(hand, mate.chop)
        )

    def _unlocks(self, name: str) -> bool:
        """Whether some teammate holds a touched copy of the card right after `name`."""
        color, rank = parse_card(name)
        return rank < 5 and self.touched_visible[card(color, rank + 1)] > 0

    # ---- rating moves ------------------------------------------------------------------------------------------

    def decide(self) -> BotDecision:
        rated = [self._rate(legal) for legal in self.view.legal_moves]
        return decide_by_ratings([rating for rating, _ in rated], [reason for _, reason in rated])

    def choose(self) -> int:
        return best_index([self._rate(legal)[0] for legal in self.view.legal_moves])

    def _rate(self, legal: LegalMove) -> tuple[float, str]:
        move = legal.move
        if move.kind is MoveKind.PLAY and move.card_index is not None:
            return self._rate_play(move.card_index)
        if move.kind is MoveKind.DISCARD and move.card_index is not None:
            return self._rate_discard(move.card_index)
        return self._rate_hint(legal)

    def _rate_play(self, index: int) -> tuple[float, str]:
        info = self.own[index]
        view = self.view
        if info.slot.finesse and info.p_play == 1.0:
            # Normally one candidate; several (all playable) if what I can see rules out the asked card itself.
            name = " or ".join(sorted(info.candidates))
            return 1.0, (
                f"The last hint pointed at a card that only {name} makes playable, and I must hold it as card "
                f"{index}, so I play it at once."
            )
        if info.p_play == 1.0:
            cands = sorted(info.candidates)
            rating = 0.9
            if any(self._unlocks(name) for name in cands):
                rating += 0.05
            if all(name[1] == "5" for name in cands) and view.info_tokens < view.max_info_tokens:
                rating += 0.03
            rating -= 0.01 * min(int(name[1]) for name in cands) / 5
            return (
                rating,
                f"Card {index} is known to be playable ({_describe_candidates(cands, self.fireworks)}).",
            )
        chance = f"card {index} is playable with probability {info.p_play:.2f}"
        if view.life_tokens <= 1:
            # Below every other kind of move: with one life left only a certain card is ever played.
            return -1.0 + 0.02 * info.p_play, f"With one life left I play only certain cards, and {chance}."
        if view.turns_left is not None and info.p_play > 0:
            rating = 0.5 + 0.5 * info.p_play
            return rating, (
                f"The game is in its final round and {chance}; with {view.life_tokens} lives left the risk "
                "costs nothing."
            )
        if (
            info.slot.touched
            and view.life_tokens >= PLAY_OR_TRASH_LIVES
            and info.p_play >= PLAY_OR_TRASH_CHANCE
            and all(name in self.playable or name in self.dead for name in info.candidates)
        ):
            # A hinted card that is playable or already useless (say a 1 whose other candidates were played): a miss
            # loses nothing but a spare life, and it never wastes a card that could still score.
            return PLAY_OR_TRASH, (
                f"Card {index} is either playable or useless ({chance}); with {view.life_tokens} lives left I "
                "try it."
            )
        rating = -0.35 - 0.5 * (1 - info.p_play) - 0.1 * info.p_critical
        return (
            rating,
            f"Every other move looks worse, but this is a gamble: {chance}, and a miss costs a life.",
        )

    def _rate_discard(self, index: int) -> tuple[float, str]:
        info = self.own[index]
        view = self.view
        token_need = 0.1 * (1 - view.info_tokens / view.max_info_tokens)
        if info.p_dead == 1.0 and 0 < view.deck_size <= STALL_USELESS_DECK and view.info_tokens > 0:
            return STALL_USELESS + token_need, (
                f"Card {index} can no longer score, but only {view.deck_size} cards are left in the deck: I would "
                f"rather stall with a hint than draw towards the end, but {self._why_not_stall()}."
            )
        if info.p_dead == 1.0:
            return 0.4 + token_need, f"Card {index} can no longer score, so discarding it costs nothing."
        if info.slot.touched:
            rating = -0.45 - 0.4 * info.p_critical - 0.1 * info.p_play + token_need
            return rating, (
                f"Every card I hold was hinted as useful, so any discard wastes a hint; card {index} is the "
                "least likely to be needed."
            )
        if index == self.own_chop and self._stall_rather_than_discard():
            return -0.25 + token_need, (
                f"Only {view.deck_size} cards are left in the deck, so I would rather stall with a hint than draw "
                f"towards the end, but {self._why_not_stall()}: I discard my chop, card {index}."
            )
        if (
            index == self.own_chop
            and view.info_tokens >= FRESH_CHOP_TOKENS
            and self.replay.chop_clued.get(view.seat) == len(view.history) - 1
        ):
            return FRESH_CHOP_DISCARD, (
                f"The last hint touched my old chop, so nobody has yet had a turn to save my new chop, card "
                f"{index}; I would rather give a hint than discard it, but no hint is harmless."
            )
        if index == self.own_chop:
            # Teammates watch the chop and save what must not go, so it is the safest unknown card to discard.
            risk = 0.1 * info.p_critical + 0.1 * info.p_play
            return 0.25 - risk + token_need, (
                f"Nothing is certainly playable and no hint is worth giving, so I discard my chop, card {index} "
                "(my oldest unhinted card)."
            )
        risk = 0.25 * info.p_critical + 0.1 * info.p_play
        return -0.6 - risk + token_need, (
            f"Card {index} is unhinted but not my chop; teammates protect only the chop, so it goes first."
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
        name = view.hand_of(player).cards[focus].card
        if self.touched_visible[name] or name in self._targets(player):
            return None
        ask = finesse_ask(self.slots, self.replay.identity, view.seat, player, touches, color, name, self.table)
        if ask is None or view.hand_of(ask.player).cards[ask.position].card != ask.card:
            return None
        blind = not self.slots[ask.player][ask.position].touched
        if self.touched_visible[ask.card] > (0 if blind else 1):
            return None  # another hinted copy is waiting: one of the two would be wasted
        return _FinesseClue(name, blind)

    @staticmethod
    def _ruled_out(before: list[Slot], after: list[Slot]) -> float:
        """The share of a hand's public candidate identities that a hint rules out (0 to 1)."""
        removed = sum(
            len(old.public_candidates()) - len(new.public_candidates())
            for old, new in zip(before, after, strict=True)
            if new is not old  # apply_clue keeps the very slot a hint leaves unchanged
        )
        return removed / (25 * len(after))

    def _rate_hint(self, legal: LegalMove) -> tuple[float, str]:
        move = legal.move
        assert legal.target_player is not None and move.target_offset is not None
        player, offset = legal.target_player, move.target_offset
        hand = self.view.hand_of(player)
        mate = self.mates[player]
        slots = self.slots[player]
        targets = self._targets(player)
        asked = self._finesse(player, legal.touches, move.color)
        if asked is not None:
            targets = targets | {asked.focus_card}
        after = apply_clue(slots, legal.touches, move.color, move.rank, self.table, lambda: targets)
        what = f"{move.color}" if move.color else f"{move.rank}s"
        in_time = self.turns_after_me is None or offset <= self.turns_after_me

        new_plays: list[str] = []
        later_plays: list[str] = []
        good_new = bad_new = misread = 0
        saved = None
        seen_in_hint: Counter[str] = Counter()
        for c in hand.cards:
            j = c.index
            slot = after[j]
            if slot is slots[j]:  # the hint changes nothing the player knows about this card
                knows_play = mate.known_play[j]
                cands = []
            else:
                cands = _counted_candidates(slot.colors, slot.ranks, slot.allowed, mate.remaining)
                knows_play = bool(cands) and all(x in self.playable for x in cands)
            if knows_play and not c.playable:
                return -0.8, (
                    f"Hinting {what} to player {player} would make them think card {j} ({c.card}) is playable."
                )
            newly = slot.touched and not slots[j].touched
            duplicate = self.touched_visible[c.card] - (1 if slots[j].touched else 0) > 0
            if knows_play and not mate.known_play[j]:
                if duplicate:
                    bad_new += 1  # another touched copy will be played first: this one would be wasted
                else:
                    new_plays.append(c.card)
            elif slot.play and newly and not knows_play:
                if c.card not in targets:
                    return -0.8, (
                        f"Hinting {what} to player {player} would point at card {j} ({c.card}) as a coming "
                        "play, which it is not."
                    )
                if not duplicate and all(x in targets for x in cands):
                    later_plays.append(c.card)
            if newly:
                seen_in_hint[c.card] += 1
                if slot.allowed is not None and c.card not in slot.allowed:
                    misread += 1
                elif c.useless or self.touched_visible[c.card] > 0 or seen_in_hint[c.card] > 1:
                    bad_new += 1
                else:
                    good_new += 1
                if j == mate.chop and self._needs_save(hand, j):
                    saved = c.card

        if asked is not None:
            later_plays = [name for name in later_plays if name != asked.focus_card]
        misread_cost = MISREAD_PENALTY[self.view.num_players - 2] * misread
        penalty = 0.12 * bad_new + misread_cost - INFO_WEIGHT * self._ruled_out(slots, after)
        plays = len(new_plays) + LATER_PLAY_WEIGHT * len(later_plays)
        if asked is not None and saved is None and in_time:
            plays += FINESSE_PLAYS
            rating = 0.5 + 0.1 * min(plays, 3) + 0.02 * good_new - penalty
            where = "finesse position" if asked.blind else "hinted cards"
            focus_card = asked.focus_card
            return rating, (
                f"Hinting {what} to player {player} points at {focus_card}, which only the {predecessor(focus_card)} "
                f"in player {(self.view.seat + 1) % self.view.num_players}'s {where} makes playable: they play it "
                f"first, then player {player} plays theirs."
            )
        if saved is not None and in_time:
            will_discard = not any(mate.known_play) and not any(mate.known_useless)
            urgency = 0.17 if will_discard and offset == 1 else 0.05 if will_discard else 0.0
            if will_discard:
                rating = 0.8 + urgency + 0.02 * plays - penalty
            else:
                # The player has something better to do than discard next turn: the save can wait (the chop may get
                # touched by a play clue first), and a play clue now is worth more.
                rating = LAZY_SAVE + 0.1 * min(plays, 3) - penalty
            new_chop = chop_index(after)
            if new_chop is not None and self._needs_save(hand, new_chop, after):
                # The next card to go is also one to keep: a clue that touches both saves more.
                rating -= NEXT_CHOP_PENALTY
            return (
                rating,
                f"Player {player}'s chop card {saved} must not be discarded; hinting {what} saves it.",
            )
        if plays and in_time:
            rating = 0.5 + 0.1 * min(plays, 3) + 0.02 * good_new - penalty
            if (
                new_plays
                and offset == 1
                and self.view.info_tokens >= PLAY_BEFORE_SAVE_TOKENS
                and self._about_to_lose_chop(hand, mate)
            ):
                # SmartBot's order: a clue that gives the next player a play keeps them from discarding this turn,
                # and the save can follow; it beats both the save and my own certain play.
                rating = PLAY_BEFORE_SAVE + 0.005 * min(len(new_plays), 2) - penalty
                shown = ", ".join(new_plays)
                return rating, (
                    f"Player {player} would discard their chop card {hand.cards[mate.chop or 0].card} next, which "
                    f"must be saved; hinting {what} shows them they can play {shown} instead, and the save can "
                    "follow."
                )
            if not any(mate.known_play):
                rating += 0.05
            if offset == 1:
                rating += 0.01
                if 0 < self.view.deck_size <= ENDGAME_DECK[self.view.num_players - 2]:
                    rating = ENDGAME_HINT + 0.1 * min(plays, 3) / 3 - penalty
                    shown = ", ".join(new_plays + later_plays)
                    return rating, (
                        f"Only {self.view.deck_size} cards are left to draw: hinting {what} to player {player} "
                        f"(for {shown}) costs no card, so it goes before any play of mine."
                    )
            if new_plays:
                shown = ", ".join(new_plays)
                return rating, f"Hinting {what} to player {player} shows them they can play {shown}."
            shown = ", ".join(later_plays)
            return rating, (
                f"Hinting {what} to player {player} tells them {shown} will be playable once the cards "
                "already known to be playable are played."
            )
        rating = -0.1 + 0.03 * good_new - penalty
        if self._keeps_last_token():
            rating -= LAST_TOKEN_INFO
        if not in_time:
            return rating - 0.1, f"Player {player} gets no further turn, so hinting them {what} is wasted."
        return (
            rating,
            f"Hinting {what} to player {player} gives information but makes no card playable or safe.",
        )
