"""Registries: the swappable parts of the timing model, each chosen by name in the config.

Life of a choice: an implementation module registers its class under a name when it is imported
(``@L2_MODELS.register("write_through")``); the packages that hold the built-in implementations
(:mod:`smsim.policies`, :mod:`smsim.mem`) import them all, and ``import smsim`` imports those packages, so
the registries are complete whenever smsim is in use. A config names its choice (``scheduler.policy``,
``shared.model``, ``l1.model``, ``l2.model``, ``dram.model``, ``launch.model``): :mod:`smsim.config` checks the name
against the registry of that key (the allowed names are the registry's own, so a model registered at run
time, from a user's file or a test, is allowed too), and the builder (:func:`smsim.single_sm.build_sm`)
constructs the class registered under it. What each kind of part must offer, and the arguments its
constructor takes, are in :mod:`smsim.contracts`.

This module imports no implementation (as ramulator2's factories and MGPUSim's builders: the registry
knows names, the implementations know the registry).
"""
from __future__ import annotations

from typing import Callable, Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """Implementations of one part, by name; ``key`` is the config key that chooses among them."""

    def __init__(self, key: str, what: str):
        self.key, self.what = key, what
        self._items: dict[str, T] = {}

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated class under ``name`` (a name may be registered once)."""
        def add(cls: T) -> T:
            if name in self._items:
                raise ValueError(f"{self.what} {name!r} is registered twice ({self.key})")
            self._items[name] = cls
            return cls
        return add

    def unregister(self, name: str) -> None:
        """Remove ``name`` (for code that registers a part for a while, such as a test)."""
        del self._items[name]

    def get(self, name: str) -> T:
        """The implementation registered under ``name``."""
        try:
            return self._items[name]
        except KeyError:
            raise KeyError(f"no {self.what} {name!r} ({self.key}); registered: {', '.join(self.names())}") from None

    def names(self) -> tuple[str, ...]:
        """The registered names, sorted."""
        return tuple(sorted(self._items))

    def __contains__(self, name: object) -> bool:
        return name in self._items


SCHEDULER_POLICIES: Registry = Registry("scheduler.policy", "warp scheduling policy")
SHARED_MODELS: Registry = Registry("shared.model", "shared-memory model")
L1_MODELS: Registry = Registry("l1.model", "L1 model")
L2_MODELS: Registry = Registry("l2.model", "L2 model")
DRAM_MODELS: Registry = Registry("dram.model", "DRAM model")
LAUNCH_MODELS: Registry = Registry("launch.model", "launch front end")

#: config key -> the registry whose names it takes
BY_KEY: dict[str, Registry] = {r.key: r for r in (SCHEDULER_POLICIES, SHARED_MODELS, L1_MODELS, L2_MODELS,
                                                    DRAM_MODELS, LAUNCH_MODELS)}

__all__ = ["Registry", "SCHEDULER_POLICIES", "SHARED_MODELS", "L1_MODELS", "L2_MODELS", "DRAM_MODELS", "LAUNCH_MODELS",
           "BY_KEY"]
