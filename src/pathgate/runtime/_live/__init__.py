"""The live project index (issue 15): discovery from memory, kept current by inotify."""

from pathgate.runtime._live._index import INDEX_MODE as INDEX_MODE
from pathgate.runtime._live._index import LiveIndex as LiveIndex
from pathgate.runtime._live._index import set_index_mode as set_index_mode

__all__ = ["INDEX_MODE", "LiveIndex", "set_index_mode"]
