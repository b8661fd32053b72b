"""Offline analyses of run folders: the state-tracking judge and move values."""
