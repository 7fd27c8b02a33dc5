"""The guard plugin's rule engine."""
