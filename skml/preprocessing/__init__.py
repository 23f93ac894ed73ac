"""Feature scaling: the four scalings of the course notes (B §1.3)."""

__all__ = []
