"""What one seat may know (its SeatView, never its own hidden cards) and the scoring of stated knowledge."""
