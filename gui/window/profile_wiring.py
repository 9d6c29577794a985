"""How the profile dock and the WALS/Grambank values are wired into the window: what they follow, and what they open.

Why apart from the window: the dock follows the open project, every answer, and every act and
language set (one change record for each, :mod:`gui.common.changes`, whoever made it: the window, the
queue, the CLI beside the window), opens features in the window, and counts its "not coded yet"
against the set the coder is coding (the pass's set) — connections that are one job, kept out of a
window class at the edge of its size.  The dock takes the pass's set when the pass starts or changes set, never while
the linguist types another set into the dock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QDockWidget

from core.changes import ProjectChange
from gui.profile.profile_dock import dock_profile
from gui.profile.profile_view import ProfileView

if TYPE_CHECKING:
    from gui.coding.coding_state import PassView
    from gui.window.main_window import MainWindow


def connect_references(window: MainWindow) -> None:
    """The WALS/Grambank values follow the open project and reach the coding pass, which asks for a folder here."""
    source, projects, coding = window.references, window.projects, window.coding
    projects.opened.connect(source.set_project)
    projects.closed.connect(lambda: source.set_project(None))
    source.loaded.connect(coding.passes.set_references)
    coding.passes.referencesNeeded.connect(lambda: source.needed(window))


def build_profile_dock(window: MainWindow) -> tuple[ProfileView, QDockWidget]:
    """The profile view in its dock, following ``window``'s project, acts, answers, language and pass."""
    view = ProfileView(window.runner, lambda: window.settings, window, window.references)
    window.projectOpened.connect(view.set_project)
    changes = window.projects.changes
    view.batch_files.changes = changes  # its batch import is an act: its record goes to every panel

    def project_changed(change: ProjectChange, initiator: object) -> None:
        """Every act's record (the window's, the queue's, a model answer, another process's): the profile re-reads."""
        if change.language:
            view.language_changed()  # re-reads the profile too
        elif (change.values_changed or change.notes) and initiator is not view:  # its own import refreshes it
            view.refresh()

    changes.changed.connect(project_changed)

    # its answers (claimed by id as each is stored) are announced as they land, as the dock's; another
    # program's answers meanwhile stay another program's
    view.batchStarted.connect(lambda operation, claims: changes.claiming(operation, claims, view))
    view.featureActivated.connect(window.select_feature)  # brings its best paragraph into view
    followed = [""]

    def follow(pass_view: PassView) -> None:
        if pass_view.active and pass_view.feature_set != followed[0]:
            followed[0] = pass_view.feature_set
            view.set_feature_set(pass_view.feature_set)

    view.set_project(window.state.project_path)  # first: the set followed next is read for this project
    window.coding.passes.passChanged.connect(follow)
    follow(window.coding.passes.pass_view())
    return view, dock_profile(window, view, window.store)
