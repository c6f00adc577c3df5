"""ctypes over libopscope.so: finding the library and declaring its entry points (py/opscope_py.h)."""
import ctypes
import os

ABI = 4  # OPSCOPE_PY_ABI of the C side
SONAME = "libopscope.so.0"
_HERE = os.path.dirname(os.path.abspath(__file__))


class DiffOpts(ctypes.Structure):
    """py/opscope_py.h's opscope_py_diff_opts, field by field."""
    _fields_ = [("by", ctypes.c_char_p), ("per", ctypes.c_char_p), ("batch", ctypes.c_char_p),
                ("graphs", ctypes.c_char_p), ("steps", ctypes.c_char_p), ("min_share", ctypes.c_double),
                ("alpha", ctypes.c_double), ("fail_pct", ctypes.c_double), ("merge_backends", ctypes.c_int),
                ("include_warmup", ctypes.c_int)]


class CError(ctypes.Structure):
    """include/opscope.h's opscope_error, field by field."""
    _fields_ = [("code", ctypes.c_int), ("msg", ctypes.c_char_p), ("file", ctypes.c_char * 256),
                ("pos", ctypes.c_uint64), ("line", ctypes.c_uint32), ("col", ctypes.c_uint32),
                ("errno_value", ctypes.c_int)]


class Options(ctypes.Structure):
    """py/opscope_py.h's opscope_py_options (size: this struct's, so the library reads what
    this package knows of and takes the rest as 0)."""
    _fields_ = [("size", ctypes.c_size_t), ("series", ctypes.c_int), ("launches", ctypes.c_int),
                ("counters_trace", ctypes.c_char_p), ("cpath_trace", ctypes.c_char_p),
                ("cpath_annotation", ctypes.c_char_p), ("cpath_instance1", ctypes.c_int64),
                ("no_cpu_ops", ctypes.c_int), ("cpath_only_critical", ctypes.c_int),
                ("hta_steps", ctypes.c_int), ("no_sequences", ctypes.c_int)]


def _candidates():
    """Where the library may be, in order: $OPSCOPE_LIBRARY; beside this module (pip install
    copies the one it built there); the folder `cmake --install` recorded, relative to this
    one; the loader's own path by soname (the Debian package: /usr/lib/<multiarch>)."""
    env = os.environ.get("OPSCOPE_LIBRARY")
    if env:
        yield env
    yield os.path.join(_HERE, SONAME)
    try:
        from . import _installed  # written by cmake --install
        yield os.path.normpath(os.path.join(_HERE, _installed.LIBDIR, _installed.SONAME))
    except ImportError:
        pass
    yield SONAME


def _declare(lib):
    P, S, I = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    sig = {
        "opscope_py_abi": (I, []),
        "opscope_py_load": (P, [ctypes.c_char_p, ctypes.POINTER(CError)]),
        "opscope_py_load_opts": (P, [ctypes.c_char_p, ctypes.POINTER(Options), ctypes.POINTER(CError)]),
        "opscope_py_job": (P, [ctypes.POINTER(ctypes.c_char_p), I, I, ctypes.POINTER(CError)]),
        "opscope_py_job_opts": (P, [ctypes.POINTER(ctypes.c_char_p), I, I, ctypes.POINTER(Options),
                                    ctypes.POINTER(CError)]),
        "opscope_py_n_parts": (S, [P]),
        "opscope_py_part": (P, [P, S]),
        "opscope_py_diff": (P, [ctypes.POINTER(ctypes.c_char_p), S, S, ctypes.POINTER(DiffOpts),
                                ctypes.POINTER(CError)]),
        "opscope_py_free": (None, [P]),
        "opscope_py_summary": (P, [P, ctypes.POINTER(S)]),
        "opscope_py_n_tables": (S, [P]),
        "opscope_py_table_name": (ctypes.c_char_p, [P, S]),
        "opscope_py_table_rows": (S, [P, S]),
        "opscope_py_table_cols": (S, [P, S]),
        "opscope_py_col_name": (ctypes.c_char_p, [P, S, S]),
        "opscope_py_col_type": (I, [P, S, S]),
        "opscope_py_col_data": (P, [P, S, S]),
        "opscope_py_col_dict": (P, [P, S, S, ctypes.POINTER(S)]),
        "opscope_error_format": (None, [ctypes.POINTER(CError), ctypes.c_char_p, S]),
        "opscope_py_hta_stragglers": (I, [P, S, P, S, I, P, ctypes.POINTER(S)]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


def load_library():
    """The library, its entry points declared; ImportError naming every place tried."""
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (absent)")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
            continue
        lib = _declare(lib)
        abi = lib.opscope_py_abi()
        if abi != ABI:
            tried.append("%s (ABI %d, this package needs %d)" % (path, abi, ABI))
            continue
        lib.path = path
        return lib
    raise ImportError("opscope: libopscope.so not found; tried: " + "; ".join(tried))
