"""Playback: the transport bar, the animation timer and the background computation of the runs.

Building a run (initialisation) and every new iteration run on the worker thread
(:class:`~pairlab.gui.worker.Executor`) so the window never freezes; stepping back, the slider and
replays only move the runs' cursors over their stored history.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtWidgets

from .controller import Controller, html_escape, tool_button
from .keys import install as install_keys
from .widgets import QuietLine

if TYPE_CHECKING:
    from .app import MainWindow
    from .model import Pane

__all__ = ["LIVE_INTERVAL_MS", "Transport"]

#: While computing many iterations ("Run to end"), the newest state is drawn this often.
LIVE_INTERVAL_MS = 500


class Transport(Controller):
    """Play, step, back, reset, run to end, cancel; the slider, speed and progress bar."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.playing = False
        self._target: int | None = None
        self._step_when_idle = False
        A = self.action
        self.act_play = A("Play", self.toggle_play, "Space", tip="Play or pause the animation")
        self.act_step = A("Step", self.step_forward, "Right", tip="One iteration forward")
        self.act_back = A("Back", self.step_back, "Left", tip="One iteration back (replayed)")
        self.act_half = A("Half step", self.half_step, "Shift+Right",
                          tip="Half an iteration forward: E-step / M-step, assign / update, ...")
        self.act_half_back = A("Half back", self.half_back, "Shift+Left",
                               tip="Half an iteration back (replayed)")
        self.act_reset = A("Reset", self.reset, "Home", tip="Back to iteration 0")
        self.act_end = A("Run to end", self.run_to_end, "End",
                         tip="Compute until every pane converges")
        self.act_cancel = A("Cancel", self.cancel, "Escape", tip="Stop the computation")
        self.act_faster = A("Faster", lambda: self.speed.setValue(self.speed.value() + 1), "+")
        self.act_slower = A("Slower", lambda: self.speed.setValue(self.speed.value() - 1), "-")
        self.bar = self._build_bar()
        self.timer = QtCore.QTimer(self)
        self.timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)  # 30 it/s needs 33 ms ticks
        self.timer.timeout.connect(self._tick)
        self._clock = QtCore.QElapsedTimer()
        self._due = 0.0  # when the next iteration of Play is due (ms on _clock)
        self._last_tick = 0.0
        #: Play's count of iterations advanced and frames drawn since it started (the bench
        #: reports achieved iterations and frames per second from them)
        self.play_stats = {"iterations": 0, "frames": 0}
        self._busy_timer = QtCore.QTimer(self)
        self._busy_timer.setSingleShot(True)
        self._busy_timer.setInterval(250)
        self._busy_timer.timeout.connect(self._show_busy)
        self._live_timer = QtCore.QTimer(self)  # the latest state while computing ahead
        self._live_timer.setInterval(LIVE_INTERVAL_MS)
        self._live_timer.timeout.connect(self._show_latest)
        self.keys = install_keys(window)  # Space plays even from a committed form field
        window.executor.busy_changed.connect(self._busy_changed)
        window.executor.progress.connect(self._progress)

    def menu_actions(self) -> list[Any]:
        return [self.act_play, self.act_step, self.act_back, self.act_half, self.act_half_back,
                self.act_reset, self.act_end, self.act_cancel, None, self.act_faster,
                self.act_slower]

    def _build_bar(self) -> QtWidgets.QWidget:
        bar = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(bar)
        row.setContentsMargins(0, 2, 0, 0)
        sp = QtWidgets.QStyle.StandardPixmap
        self.transport_buttons: list[QtWidgets.QToolButton] = []
        self.half_buttons: list[QtWidgets.QToolButton] = []
        for action, text, icon in ((self.act_reset, "Reset", sp.SP_MediaSkipBackward),
                                   (self.act_back, "Back", sp.SP_MediaSeekBackward),
                                   (self.act_play, "Play", sp.SP_MediaPlay),
                                   (self.act_step, "Step", sp.SP_MediaSeekForward),
                                   (self.act_end, "Run to end", sp.SP_MediaSkipForward)):
            action.setIcon(self.window.style().standardIcon(icon))
            button = tool_button(action, text)
            button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setMinimumWidth(38)
            self.transport_buttons.append(button)
            row.addWidget(button)
            if action is self.act_play:
                self.play_button = button
            if action is self.act_back:
                row.addWidget(self._half_button(self.act_half_back, "◀½"))
            if action is self.act_step:
                row.addWidget(self._half_button(self.act_half, "½▶"))
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setObjectName("iteration_slider")
        self.slider.setRange(0, 0)
        self.slider.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self.slider.setMinimumWidth(60)
        self.slider.valueChanged.connect(self._slider_moved)
        row.addWidget(self.slider, 1)
        self.iteration_label = QtWidgets.QLabel("iteration 0")
        self.iteration_label.setMinimumWidth(100)
        # a long label ("iteration 12 / 40+ · M-step") takes free room, never widens the window
        self.iteration_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored,
                                           QtWidgets.QSizePolicy.Policy.Preferred)
        # its text changes every frame: in a QuietLine it no longer lays the window out again
        # each time (issue 32: about 0.6 ms a frame)
        self.iteration_line = QuietLine(self.iteration_label)
        self.iteration_line.setMinimumWidth(100)
        row.addWidget(self.iteration_line, 1)
        self.speed = QtWidgets.QSpinBox()  # no "speed" label: the row must fit 540 px
        self.speed.setRange(1, 30)
        self.speed.setValue(4)
        self.speed.setSuffix(" it/s")
        self.speed.setToolTip("Animation speed, iterations per second (+ / -)")
        self.speed.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
        self.speed.valueChanged.connect(self._speed_changed)
        row.addWidget(self.speed)
        # progress and Cancel go to the status bar (MainWindow): shown in the transport row they
        # widened its minimum and a small window grew while something was computed
        self.progress = QtWidgets.QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setMinimumWidth(110)  # room for "1234/5678"
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.hide()
        return bar

    def _half_button(self, action: Any, text: str) -> QtWidgets.QToolButton:
        button = tool_button(action, text)
        button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        button.setMinimumWidth(26)
        self.half_buttons.append(button)
        return button

    def set_presenting(self, on: bool) -> None:
        # big icons without text leave the iteration slider room on a 1280x720 projector
        style = (QtCore.Qt.ToolButtonStyle.ToolButtonIconOnly if on
                 else QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for button in self.transport_buttons:
            button.setToolButtonStyle(style)
            button.setIconSize(QtCore.QSize(28, 28) if on else QtCore.QSize(16, 16))
        self.slider.setMinimumWidth(160 if on else 60)  # never squeezed away by big fonts
        for button in self.half_buttons:  # text buttons: bigger font, never icon-only
            font = button.font()
            font.setPointSize(15 if on else QtWidgets.QApplication.font().pointSize())
            button.setFont(font)

    def update(self) -> None:
        lab = self.lab
        busy = self.window.executor.busy
        top = max(lab.max_index, 0)  # -1 while no pane has a run (all stopped while starting)
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(top, 0))
        self.slider.setValue(min(lab.iteration, top))
        self.slider.blockSignals(False)
        shown = min(lab.iteration, top)
        finished = all(p.finished for p in lab.panes)
        phase = lab.phase_shown() if lab.on_half else ""
        if phase:  # the half-step before an iteration not stored yet as a whole
            shown = lab.iteration
        self.iteration_line.set_text(f"iteration {shown} / {top}" + ("" if finished else "+")
                                     + (f" · {phase}" if phase else ""))
        self.act_back.setEnabled(shown > 0 or lab.on_half)
        self.act_reset.setEnabled(shown > 0 or lab.on_half)
        self.act_step.setEnabled(lab.can_advance() or lab.on_half or busy)
        halves = lab.has_phases
        for button in self.half_buttons:
            button.setVisible(halves)
        self.act_half.setEnabled(halves and (lab.can_advance() or lab.on_half or busy))
        self.act_half_back.setEnabled(halves and (shown > 0 or lab.on_half))
        self.act_end.setEnabled(not finished or shown < top)  # End also jumps to the last state

    # == background work =======================================================================
    def rebuild(self) -> None:
        """Build the runs of panes that need one, on the worker thread."""
        for pane in self.lab.pending():
            generation, epoch = pane.generation, self.lab.epoch
            self.window.executor.submit(
                lambda job, p=pane: self.lab.build_run(p), label=f"starting {pane.name}",
                on_done=partial(self._built, pane, generation, epoch),
                on_error=partial(self._built, pane, generation, epoch, None), cancellable=False)
        self.window.refresh()

    def _current(self, pane: Pane, generation: int) -> bool:
        return pane in self.lab.panes and pane.generation == generation

    def _outdated(self, lab: Any, error: BaseException | None, epoch: int,
                  generations: list[tuple[Pane, int]]) -> bool:
        """After a background computation: show an unexpected error, and rebuild (returning True)
        when ``lab`` changed while it ran."""
        if error is not None:
            self.window.banner.show_message(
                html_escape(f"Unexpected error: {type(error).__name__}: {error}"), source="unexpected")
        if lab.epoch != epoch or not all(self._current(p, g) for p, g in generations):
            self.rebuild()
            return True
        return False

    def _built(self, pane: Pane, generation: int, epoch: int, run: Any,
               error: BaseException | None = None) -> None:
        if not self._current(pane, generation):
            return
        self.lab.attach(pane, run, error)
        if not self.lab.pending() and self._target is not None and self.lab.epoch == epoch:
            target, self._target = self._target, None
            self.compute(target, then_seek=target)
        self.window.refresh()
        self.window.report_errors()

    def compute(self, t: int | None, *, then_seek: int | None = None, label: str = "") -> bool:
        """Compute the panes up to iteration ``t`` (None: to the end) in the background."""
        lab = self.lab
        panes = lab.needs_compute(10**9 if t is None else t)
        if not panes:
            if then_seek is not None:  # -1: the last stored iteration ("Run to end" when done)
                lab.seek(min(then_seek, lab.max_index) if then_seek >= 0 else lab.max_index)
                self.window.refresh()
            return False
        epoch = lab.epoch
        generations = [(p, p.generation) for p in panes]

        def work(job: Any) -> None:
            lab.compute_to(t, panes, cancelled=job.cancelled, progress=job.progress)

        def done(_result: Any, error: BaseException | None = None) -> None:
            if self._outdated(lab, error, epoch, generations):
                return
            if then_seek is not None:
                lab.seek(min(then_seek, lab.max_index) if then_seek >= 0 else lab.max_index)
            self.window.refresh()
            self.window.report_errors()

        self.window.executor.submit(work, label=label or "computing", on_done=done,
                                    on_error=partial(done, None))
        if t is None or t > lab.iteration + 1:  # more than one step: show progress on the way
            self._live_shown: tuple[int, ...] = ()
            self._live_timer.start()
        return True

    def _show_latest(self) -> None:
        if not self.window.executor.busy:
            self._live_timer.stop()
            return
        newest = tuple(p.last_index for p in self.lab.panes)
        if newest == self._live_shown:
            return  # nothing new since the last look: no redraw
        self._live_shown = newest
        self.window.presentation.draw(latest=True)
        newest = max((p.last_index for p in self.lab.panes), default=0)
        self.iteration_line.set_text(f"computing... {newest}")

    def _busy_changed(self, busy: bool) -> None:
        if busy:
            self._busy_timer.start()
        else:
            self._busy_timer.stop()
            self._live_timer.stop()
            self.progress.hide()
            self.cancel_button.hide()
            status = self.window.status
            if status.currentMessage().endswith("(Esc cancels)"):
                status.clearMessage()
            self.window.update_controls()
            if self._step_when_idle:
                self._step_when_idle = False
                QtCore.QTimer.singleShot(0, self.step_forward)

    def _show_busy(self) -> None:
        executor = self.window.executor
        if not executor.busy:
            return
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        job = executor.current
        self.window.status.showMessage((job.label if job else "working") + "...  (Esc cancels)")

    def _progress(self, label: str, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"{done}/{total}")  # the label is in the status bar and tooltip
        self.progress.setToolTip(label)

    def cancel(self) -> None:
        """Stop the computation under way (Esc); without one, drop a half-drawn link."""
        self._step_when_idle = False
        if self.window.executor.busy:
            self.window.executor.cancel()
            self.window.status.showMessage("Cancelling after the current iteration...", 4000)
        else:
            self.window.editing.drop_pending()
        self.pause()

    # == navigation ============================================================================
    def step_forward(self) -> bool:
        """One iteration forward in every pane; False when every pane is at its end."""
        if self.window.executor.busy:
            if not self.playing:
                self._step_when_idle = True  # a key press during a rebuild is not lost
            return True
        t = self.lab.iteration + (0 if self.lab.on_half else 1)  # a half-step: finish it
        if self.lab.needs_compute(t):
            return self.compute(t, then_seek=t, label="computing") or True
        if t <= self.lab.max_index:
            self.lab.seek(t)
            self.window.refresh()
            return True
        return False

    def step_back(self) -> None:
        lab = self.lab
        if self.window.executor.busy or (lab.iteration == 0 and not lab.on_half):
            return
        # on a half-step before iteration t, back is iteration t - 1 (the whole state it left)
        lab.seek(min(lab.iteration, lab.max_index + 1 if lab.on_half else lab.max_index) - 1)
        self.window.refresh()

    def half_step(self) -> bool:
        """Half an iteration forward in every pane (panes without phases move on the second
        half); False at the end."""
        lab = self.lab
        if self.window.executor.busy:
            return True
        if lab.on_half:
            return self.step_forward()
        t = lab.iteration + 1
        if lab.needs_compute(t - 1) or not lab.has_half(t):
            return self.step_forward()
        panes = lab.needs_half(t)
        if not panes:
            lab.seek_half(t)
            self.window.refresh()
            return True
        epoch, generations = lab.epoch, [(p, p.generation) for p in panes]

        def done(_result: Any, error: BaseException | None = None) -> None:
            if self._outdated(lab, error, epoch, generations):
                return
            lab.seek_half(t)
            self.window.refresh()
            self.window.report_errors()

        self.window.executor.submit(lambda job: lab.compute_half(t, panes), label="half-step",
                                    on_done=done, on_error=partial(done, None))
        return True

    def half_back(self) -> None:
        """Half an iteration back (replayed, never recomputed)."""
        lab = self.lab
        if self.window.executor.busy or (lab.iteration == 0 and not lab.on_half):
            return
        t = min(lab.iteration, lab.max_index)
        if lab.on_half:
            lab.seek(lab.iteration - 1)
        elif any(p.run is not None and (t - 1) in p.run.halves for p in lab.panes):
            lab.seek_half(t)
        else:
            lab.seek(t - 1)
        self.window.refresh()

    def reset(self) -> None:
        self.pause()
        if not self.window.executor.busy:
            self.lab.seek(0)
            self.window.refresh()

    def seek(self, t: int) -> None:
        """Show iteration ``t`` (computing it first when it is not stored yet)."""
        if self.window.executor.busy:
            return
        if self.lab.needs_compute(t):
            self.compute(t, then_seek=t)
        else:
            self.lab.seek(min(t, self.lab.max_index))
            self.window.refresh()

    def run_to_end(self) -> None:
        self.pause()
        if not self.window.executor.busy:
            self.compute(None, then_seek=-1, label="running to convergence")

    def play_to(self, t: int) -> None:
        """Compute and show iteration ``t`` (``pairlab gui --play N``)."""
        if self.lab.pending():
            self._target = t
        else:
            self.compute(t, then_seek=t)

    def go_to_after_build(self, t: int | None) -> None:
        """Show iteration ``t`` once the pending runs are built (an opened session)."""
        self._target = t

    def toggle_play(self) -> None:
        self.pause() if self.playing else self.play()

    def play(self) -> None:
        if self.playing:
            return
        if self.lab.at_end() and not self.lab.pending():
            self.lab.seek(0)
        self.playing = True
        self.act_play.setText("Pause")
        self.act_play.setIcon(self.window.style().standardIcon(
            QtWidgets.QStyle.StandardPixmap.SP_MediaPause))
        self._speed_changed(self.speed.value())
        self.play_stats = {"iterations": 0, "frames": 0}
        self._clock.start()
        self._due = self._period
        self._last_tick = 0.0
        self.timer.start(self._next_interval())

    def pause(self) -> None:
        if not self.playing:
            return
        self.playing = False
        self.timer.stop()
        self.act_play.setText("Play")
        self.act_play.setIcon(self.window.style().standardIcon(
            QtWidgets.QStyle.StandardPixmap.SP_MediaPlay))
        self.window.refresh()

    def _tick(self) -> None:
        if self.window.executor.busy or self.lab.pending():
            return
        lab = self.lab
        before = lab.iteration
        steps = self._steps_due()
        # replaying stored iterations: when frames take longer than the interval, the ones in
        # between are skipped so that Play keeps its speed (computing is never skipped)
        target = before + steps
        if steps > 1 and not lab.on_half and target <= lab.max_index:
            lab.seek(target)
            self.window.refresh()
            advanced = True
        else:
            advanced = self.step_forward()
        if not advanced:
            self.pause()
            finished = [p.status() for p in lab.panes]
            self.window.status.showMessage("Finished: " + "; ".join(finished), 8000)
            return
        if lab.iteration != before:  # drawn now (a computed step is drawn when it is done)
            self.play_stats["frames"] += 1
            self.play_stats["iterations"] += max(lab.iteration - before, 0)
        if self.playing:
            self.timer.setInterval(self._next_interval())

    def _next_interval(self) -> int:
        """Milliseconds to the next iteration due: the timer ticks on the exact schedule of
        ``1000 / speed`` ms (a fixed ``int(1000 / 30)`` = 33 ms interval played 30.3 iterations a
        second at 30), at once when Play is behind."""
        return max(0, round(self._due - self._clock.elapsed()))

    def _steps_due(self) -> int:
        """Iterations Play owes at this tick: 1 on time; when frames take longer than the
        interval, as many as are due by the time the frame drawn now is seen (one frame's time
        from now: the time since the last tick). The schedule restarts after a pause of over a
        second (a computation)."""
        interval = self._period
        now = float(self._clock.elapsed())
        frame, self._last_tick = now - self._last_tick, now
        late = now - self._due
        if late > 1000.0:  # a computation or a long pause: back on schedule from now
            self._due = now + interval
            return 1
        ahead = min(frame, 1000.0) if frame > 1.5 * interval else 0.0  # slow frames only
        steps = max(1, 1 + int((late + ahead) // interval))
        self._due += steps * interval
        return steps

    @property
    def _period(self) -> float:
        """Milliseconds an iteration at Play's speed."""
        return 1000.0 / max(self.speed.value(), 1)

    def _speed_changed(self, value: int) -> None:
        self.timer.setInterval(round(self._period))

    def _slider_moved(self, value: int) -> None:
        if value != self.lab.iteration:
            self.seek(value)
