"""Statistics over plain numbers: pass^k, intervals, paired differences, ranks, planning."""
