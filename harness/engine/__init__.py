"""The only code that imports pyhanabi: stored decks, legal moves, applying moves, replaying a logged game."""
