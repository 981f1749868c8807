"""Detector(features="sift"): the module gives exactly the CLI's SIFT
keypoints and descriptors (the same library call on the same pixels), on
both backends; SIFT's and SURF's settings do not mix."""

import numpy as np
import pytest

import glsurf
from conftest import BACKENDS, cli_detect
from test_detect import assert_same_features

CASES = [
    ("box.png", {}, []),
    ("graf1.png", dict(max_features=500, contrast_threshold=0.06, root_sift=True),
     ["--max-features", "500", "--contrast-threshold", "0.06", "--root-sift"]),
    ("box_in_scene.png", dict(first_octave=0, layers=4, edge_threshold=5),
     ["--first-octave", "0", "--layers", "4", "--edge-threshold", "5"]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,kwargs,options", CASES, ids=[c[0] for c in CASES])
def test_sift_equals_cli(cli, assets, tmp_path, backend, name, kwargs, options):
    expected = cli_detect(cli, tmp_path, assets / name, backend, ["--features", "sift", *options])
    det = glsurf.Detector(features="sift", backend=backend, **kwargs)
    got = det.detect(str(assets / name))
    assert len(got[0]) > 50
    assert got[1].shape[1] == 128 and det.descriptor_size == 128
    assert (got[1] >= 0).all()
    np.testing.assert_allclose(np.linalg.norm(got[1], axis=1), 1, atol=1e-5)
    assert_same_features(got, expected)


def test_sift_settings():
    det = glsurf.Detector(features="sift", backend="cpu")
    assert det.features == "sift" and det.octaves == 0 and det.layers == 3
    assert det.contrast_threshold == pytest.approx(0.04) and det.first_octave == -1 and not det.root_sift
    assert "features='sift'" in repr(det)
    assert glsurf.Detector(backend="cpu").octaves == 4  # SURF's defaults stay
    with pytest.raises(ValueError, match="threshold is SURF's setting"):
        glsurf.Detector(features="sift", threshold=500, backend="cpu")
    with pytest.raises(ValueError, match="root_sift is SIFT's setting"):
        glsurf.Detector(root_sift=True, backend="cpu")
    with pytest.raises(ValueError, match="features must be"):
        glsurf.Detector(features="orb", backend="cpu")
    with pytest.raises(ValueError, match="SIFT configuration out of range"):
        glsurf.Detector(features="sift", first_octave=1, backend="cpu")
