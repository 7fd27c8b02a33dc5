"""The soak (``tox -e soak`` / ``python -m tests.soak``): every hook system fired in a
loop for about a minute, then throughput and resource counts.  Not part of the normal
suite: pytest collects no test here."""
