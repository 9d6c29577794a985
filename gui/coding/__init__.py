"""The linguist's own coding: the coding panel, the coding pass, and their Qt-free state (coding_state)."""
