"""The test suite.

It keeps the bytecode of the package and of its test modules even where PYTHONDONTWRITEBYTECODE
is set (this package is imported before any of them): otherwise each test process compiles them
anew and rewrites the asserts of every test module, about 5 s of CPU a worker, and each app a
test starts in a subprocess compiles the modules it imports.
"""

import sys

sys.dont_write_bytecode = False
