"""Builds libopscope.so with the repository's CMake and puts it inside the package, so that
`pip install --no-build-isolation ./python` gives a venv a self-contained `import opscope`
(no network: Debian's setuptools and wheel, the system's compiler and CMake).

Where the library comes from, first found:
  OPSCOPE_LIBRARY    a built libopscope.so.N to copy
  OPSCOPE_BUILD_DIR  a configured build of this repository: its target is built there
  otherwise          a build of its own in the setuptools build folder (the tests off)
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SONAME = "libopscope.so.0"


def built_library(build_temp):
    lib = os.environ.get("OPSCOPE_LIBRARY")
    if lib:
        return lib
    build = os.environ.get("OPSCOPE_BUILD_DIR")
    if not build:
        if not os.path.exists(os.path.join(REPO, "CMakeLists.txt")):
            raise SystemExit("opscope: no libopscope.so to package: set OPSCOPE_LIBRARY or "
                             "install from the repository's python/ folder")
        build = os.path.join(build_temp, "cmake")
        subprocess.check_call(["cmake", "-S", REPO, "-B", build, "-DBUILD_TESTING=OFF",
                               "-DCMAKE_BUILD_TYPE=RelWithDebInfo"])
    jobs = os.environ.get("OPSCOPE_JOBS", "2")
    subprocess.check_call(["cmake", "--build", build, "--target", "opscope_shared", "-j", jobs])
    return os.path.join(build, "lib", SONAME)


class BuildPy(build_py):
    def run(self):
        super().run()
        lib = built_library(os.path.abspath(self.get_finalized_command("build").build_temp))
        shutil.copy2(lib, os.path.join(self.build_lib, "opscope", SONAME))


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: a platform wheel, not a pure one."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
