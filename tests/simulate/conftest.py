"""The background of the simulate app, made visible to tests: jobs handed to the local runner are kept
until a test runs them (in its own thread, inside its own transaction), so a request is seen to answer
before its batch is played."""

import pytest

from simulate import background


class RecordingRunner:
    """Stands in for `background.local_runner`: keeps each job until `run_all`."""

    def __init__(self):
        self.jobs = []

    def submit(self, job):
        self.jobs.append(job)

    def run_all(self) -> int:
        """Run every job kept so far, and those they hand out in turn; how many ran."""
        ran = 0
        while self.jobs:
            self.jobs.pop(0)()
            ran += 1
        return ran

    def wait_idle(self, timeout: float) -> bool:
        self.run_all()
        return True


@pytest.fixture(autouse=True)
def local_runner(monkeypatch):
    runner = RecordingRunner()
    monkeypatch.setattr(background, "local_runner", runner)
    monkeypatch.setattr(background, "_resumed_at", None)
    return runner


@pytest.fixture
def study(anon_client, local_runner, django_capture_on_commit_callbacks, catalogue):
    """Post a study, play it in the background, read it back done."""

    def post(url, payload):
        with django_capture_on_commit_callbacks(execute=True):
            response = anon_client.post(url, payload, format="json")
        assert response.status_code == 202, response.content
        local_runner.run_all()
        body = anon_client.get(response.json()["url"]).json()
        assert body["status"] == "done", body["error"]
        return body

    return post
