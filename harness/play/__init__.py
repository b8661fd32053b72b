"""A seat's turn and a whole game: SeatView -> strategy -> Decision -> MoveRecord appended to the game's log."""
