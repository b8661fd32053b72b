"""Offline analyses of run folders: the state-tracking judge and move values (in this process, worker processes or
on Ray)."""
