"""GPU models as TOML (h100, h200, a100, v100, tiny): loaded by :func:`smsim.config.load`."""
