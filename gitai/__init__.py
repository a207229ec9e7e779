"""gitai: tie every change in a git repository to the intent it serves.

This module stays tiny: hooks import it on every commit.
"""

__version__ = "0.1.0"
