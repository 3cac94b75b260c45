"""Until the door's callers import from :mod:`inspector.loading`: the report store's names."""

from inspector.loading.reports import *  # noqa: F403
from inspector.loading.reports import held, key_for, lookup, own_plan_key, store  # noqa: F401
