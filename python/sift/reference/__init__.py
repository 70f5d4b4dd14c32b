"""Independent reference implementations of sift op semantics, for tests."""
