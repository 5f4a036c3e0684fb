"""The little of pytest that the README's conftest uses, for machines without pytest.

Fixtures (functions, or generators whose code after `yield` is the teardown) by name, `scope`
"session" or per test, `autouse`; every `test_*` function of the module given is run with the
fixtures its parameters name. Prints one line per test and exits 1 when one fails.
"""
import importlib.util
import inspect
import sys
import traceback

_fixtures = {}


def fixture(function=None, *, scope="function", autouse=False):
    def register(f):
        _fixtures[f.__name__] = {"function": f, "scope": scope, "autouse": autouse}
        return f

    return register(function) if function is not None else register


def _run(path):
    spec = importlib.util.spec_from_file_location("readme_conftest", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    session_values, session_teardowns = {}, []
    failed = 0
    for name, test in sorted(inspect.getmembers(module, inspect.isfunction)):
        if not name.startswith("test_"):
            continue
        values, teardowns = {}, []

        def value_of(fixture_name):
            known = _fixtures[fixture_name]
            cache, stack = (session_values, session_teardowns) if known["scope"] == "session" else (values, teardowns)
            if fixture_name not in cache:
                function = known["function"]
                args = [value_of(p) for p in inspect.signature(function).parameters]
                result = function(*args)
                if inspect.isgenerator(result):
                    cache[fixture_name] = next(result)
                    stack.append(result)
                else:
                    cache[fixture_name] = result
            return cache[fixture_name]

        try:
            for auto in [n for n, f in _fixtures.items() if f["autouse"]]:
                value_of(auto)
            test(*[value_of(p) for p in inspect.signature(test).parameters])
            print(f"PASSED {name}")
        except Exception:
            failed += 1
            print(f"FAILED {name}")
            traceback.print_exc()
        finally:
            for generator in reversed(teardowns):
                next(generator, None)
    for generator in reversed(session_teardowns):
        next(generator, None)
    return 1 if failed else 0


if __name__ == "__main__":
    # the conftest's `import pytest` gets this module, with its fixtures
    sys.modules["pytest"] = sys.modules["__main__"]
    sys.exit(_run(sys.argv[1]))
