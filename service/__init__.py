"""Cardroom's HTTP service; empty so that `import service.store` pulls in no Flask."""
