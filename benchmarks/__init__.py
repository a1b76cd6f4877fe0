"""`make bench`: performance figures of statusboard, printed, never asserted in unit tests."""
