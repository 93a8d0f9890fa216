"""What the rank scripts of the runtime tests share."""


def expect_error(error_type, text, call):
    """Checks that `call()` raises `error_type` with `text` in its message."""
    try:
        call()
    except error_type as problem:
        assert text in str(problem), problem
        return
    raise AssertionError(f"no {error_type.__name__} ({text})")
