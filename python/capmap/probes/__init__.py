"""The capture paths (one module each, listed by `catalog`), what their probes share
(`context`), and the task that runs them in order (`task`)."""
