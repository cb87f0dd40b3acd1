"""The progress line of a sweep: done/total, failures, estimated time left; on a terminal only."""
import os
import sys
import time


class Progress:
    def __init__(self, name, total, already_done, stream=sys.stderr):
        self.name, self.total, self.done, self.failed = name, total, already_done, 0
        self.started_with, self.t0, self.stream = already_done, time.time(), stream
        self.enabled = stream.isatty() and not os.environ.get("CI")
        self.show()

    def add(self, ok):
        self.done += 1
        self.failed += 0 if ok else 1
        self.show()

    def skip(self):
        """A run already done before this invocation: counted, but not in the time estimate."""
        self.done += 1
        self.started_with += 1
        self.show()

    def retry(self, n):
        """n failed runs go again."""
        self.done -= n
        self.failed -= n
        self.show()

    def note(self, text):
        if self.enabled:
            print(file=self.stream)
        print(text, file=self.stream)

    def show(self):
        if not self.enabled:
            return
        ran = self.done - self.started_with
        left = ""
        if ran and self.done < self.total:
            secs = (time.time() - self.t0) / ran * (self.total - self.done)
            left = f", about {int(secs // 60)}m{int(secs % 60):02d}s left"
        failed = f", {self.failed} failed" if self.failed else ""
        print(f"\r\033[K{self.name}: {self.done}/{self.total} runs done{failed}{left}", end="", file=self.stream,
              flush=True)

    def close(self):
        if self.enabled:
            print(file=self.stream)
