"""Benchmarks for hermes-hooks: every figure is a ratio against a baseline measured in
the same process, because absolute timings on shared machines mean little."""
