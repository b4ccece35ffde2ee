from pathlib import Path

import pytest

from kit.settings import ConfigError, ServiceSettings, check_url_scheme, load_settings


def test_settings_come_from_reporecall_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REPORECALL_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("REPORECALL_LISTEN", "127.0.0.1:9999")
    settings = load_settings(ServiceSettings)
    assert settings.data_dir == (tmp_path / "d").resolve() and settings.data_dir.is_dir()
    assert settings.listen == "127.0.0.1:9999"


def test_bad_value_names_the_variable_and_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("REPORECALL_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("REPORECALL_METRICS_PORT", "lots")
    with pytest.raises(ConfigError) as error:
        load_settings(ServiceSettings)
    assert str(error.value).startswith("REPORECALL_METRICS_PORT=lots: ")
    assert "-1 to disable" in str(error.value)


def test_data_dir_that_cannot_be_created_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ConfigError) as error:
        load_settings(ServiceSettings, data_dir=blocker / "sub")
    assert "REPORECALL_DATA_DIR" in str(error.value) and "cannot create" in str(error.value)


def test_unknown_url_scheme_lists_the_choices() -> None:
    allowed = {"": "embedded", "sqlite": "embedded SQLite", "http": "Meilisearch"}
    assert check_url_scheme("keyword_url", "sqlite:///x.db", allowed) == "sqlite"
    with pytest.raises(ConfigError) as error:
        check_url_scheme("keyword_url", "redis://x", allowed)
    assert "REPORECALL_KEYWORD_URL=redis://x: unknown store URL scheme 'redis'" in str(error.value)
