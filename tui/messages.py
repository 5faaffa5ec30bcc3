"""Small messages that thread workers and panes send to the app."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class StateLoaded(Message):
    state: Any            # tui.state.DashboardState
    reason: str           # "start", "reload" or "watch"


@dataclass
class LoadFailed(Message):
    problems: list        # scoring.errors.Problem
    reason: str


@dataclass
class ModelSelected(Message):
    model: str


@dataclass
class OpenAttempts(Message):
    model: str
    item: str


@dataclass
class InstancesLoaded(Message):
    key: tuple            # (model, item, attempt)
    columns: Any          # tui.state.InstanceColumns


@dataclass
class InstancesFailed(Message):
    key: tuple
    message: str


@dataclass
class Tau2Loaded(Message):
    metrics: dict


@dataclass
class Tau2Failed(Message):
    problems: list
