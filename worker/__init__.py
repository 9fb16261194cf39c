"""RQ jobs that play AI seats' turns."""
