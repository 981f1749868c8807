"""The package's surface: every public name documented, help() readable,
the dtypes as docs/python.md gives them."""

import pydoc

import numpy as np

import glsurf


def test_every_public_name_has_a_docstring():
    for name in glsurf.__all__:
        obj = getattr(glsurf, name)
        if isinstance(obj, np.dtype):
            continue
        assert obj.__doc__ and len(obj.__doc__) > 60, f"glsurf.{name} has no docstring worth the name"
    for cls, methods in [(glsurf.Detector, ["detect", "compute"]), (glsurf.Matcher, ["match", "match_many"])]:
        for m in methods:
            assert len(getattr(cls, m).__doc__) > 200, f"{cls.__name__}.{m}"


def test_help_names_the_api():
    text = pydoc.render_doc(glsurf, renderer=pydoc.plaintext)
    for word in ["Detector", "Matcher", "find_homography", "BGR", "backend=\"cpu\"", "keypoint_dtype", "GIL"]:
        assert word in text


def test_dtypes():
    assert glsurf.keypoint_dtype == np.dtype([("x", "<f4"), ("y", "<f4"), ("size", "<f4"), ("angle", "<f4"),
                                              ("response", "<f4"), ("octave", "<i4"), ("laplacian", "<i4")])
    assert glsurf.match_dtype == np.dtype([("query", "<i4"), ("train", "<i4"), ("distance", "<f4")])
    assert issubclass(glsurf.Error, RuntimeError)
