"""The fake GitHub answers PyGithub's own object API too (search, rate limits, pulls), in GitHub's shapes."""

from __future__ import annotations

from github import Auth, Github

from tests.github_refs.fake_github import FakeGitHub


def test_pygithub_reads_pulls_search_and_rate_limits_from_the_fake(fake_github: FakeGitHub):
    fake_github.add("vllm-project/vllm", 1, title="Fix", labels=["ready"], requested_reviewers=["bob"])
    fake_github.add("vllm-project/vllm", 2, pull=False)
    gh = Github(
        base_url=fake_github.url, auth=Auth.Token("t"), seconds_between_requests=None, retry=None, lazy=True
    )
    try:
        pull = gh.get_repo("vllm-project/vllm").get_pull(1)
        assert (pull.title, pull.state, pull.draft, [label.name for label in pull.labels]) == (
            "Fix",
            "open",
            False,
            ["ready"],
        )
        found = gh.search_issues("repo:vllm-project/vllm is:pr")
        assert [item.number for item in found] == [1]
        assert gh.get_rate_limit().resources.core.limit == 5000
    finally:
        gh.close()
    assert all(request.authorization == "token t" for request in fake_github.requests)
