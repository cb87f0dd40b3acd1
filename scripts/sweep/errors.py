"""What a sweep reports: bad input or an unavailable backend (exit 2, nothing run), failed runs (exit 1)."""


class SweepError(Exception):
    exit_code = 2


class SweepFailed(Exception):
    exit_code = 1
