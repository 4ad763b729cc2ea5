"""Generate the lesson sessions shipped in pairlab/gui/lessons/.

Run: ``python assets/make_lessons.py pairlab/gui/lessons``; the JSON files are what ships.
"""
import json
import sys

import numpy as np
from pairlab_builtins.datasets.paper_shapes import ppc_fig1_relations
from pairlab_builtins.datasets.synthetic import fig3_init, fig3_links

from pairlab.gui.model import Lab
from pairlab.gui.session import session_dict

out = sys.argv[1]
VIEW = {"decision_regions": True, "ellipses": True, "exemplars": True, "legend": True,
        "links": True, "changes": True, "errors": False, "match_colours": True, "speed": 3}

def save(name, lab, title, note, order):
    data = session_dict(lab, view=VIEW)
    data["saved"] = "2026-11-26T00:00:00"
    data["iteration"] = 0
    data["lesson"] = {"title": title, "note": note, "order": order}
    with open(f"{out}/{name}.json", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")

# 1 GM-PR Fig. 3
lab = Lab()
lab.set_dataset("fig3-toy", seed=0)
init = fig3_init(lab.dataset)
extra = {k: init[k] for k in ("covariances_init", "weights_init", "tol", "max_iter")}
lab.add_pane("gmm", {"n_components": 2, **extra})
lab.add_pane("gmpr", {"n_components": 2, **extra})
lab.init_means = np.asarray(init["means_init"])
lab.set_constraints(fig3_links(lab.dataset), undoable=False)
save("01-gmpr-fig3", lab, "GM-PR Fig. 3: four links turn the split around",
     "Same start for both: GMM settles on the wrong, vertical split; 2 must-links and 2 cannot-links "
     "lead GM-PR to the horizontal one.\nStep by halves (Shift+Right): the links act in the E-step "
     "(eq. 14); click a linked point to see its pair's joint posterior.", 1)

# 2 two moons, one against two Gaussians per class
lab = Lab()
lab.set_dataset("two-moons", {"n_samples": 240, "noise": 0.08}, seed=0)
lab.add_pane("gmpr", {"n_components": 2})
lab.add_pane("gmpr-mixture", {"n_components": 2, "n_components_per_class": 2})
lab.add_random_links(8, 8)
save("02-moons-mixture", lab, "Two moons: one or two Gaussians per class",
     "One Gaussian per class cannot bend along a moon, whatever the links; two per class (GM-PR's "
     "mixture model) can, from the same links.\nWatch the ellipses of each class keep one colour.", 2)

# 3 PPC weights (PPC Fig. 2: the figure's links and poor start)

lab = Lab()
lab.set_dataset("ppc-fig1", {"n_per_blob": 25, "spread": 1.0}, seed=0)
links, means = ppc_fig1_relations(lab.dataset)
for w in (0.0, 1.3, 3.0):
    lab.add_pane("ppc", {"n_components": 2, "weighting": "uniform", "must_link_weight": w,
                         "cannot_link_weight": w, "max_iter": 20, "tol": 0.0})
lab.init_means = np.asarray(means, dtype=float)
lab.set_constraints(links, undoable=False)
save("03-ppc-weights", lab, "PPC Fig. 2: the weight of the links, w = 0, 1.3, 3",
     "Same poor start, same 20 correct links: w = 0 (plain EM) and w = 1.3 end in the wrong "
     "left/right model, w = 3 finds the intended one (at this data size; see "
     "docs/reproductions.md).\nStep by halves and show errors (W) to see where the links pull.", 3)

# 4 soft against hard links under noise
lab = Lab()
lab.set_dataset("gaussian-blobs", {"n_samples": 240, "n_centers": 3, "cluster_std": 1.6},
                             seed=2)
lab.add_pane("ppc", {"n_components": 3, "must_link_weight": 1.5, "cannot_link_weight": 1.5})
lab.add_pane("constrained-em", {"n_components": 3})
lab.add_random_links(15, 15)
lab.set_noise(0.2)
save("04-soft-hard-noise", lab, "Soft against hard links when 20 % of them are wrong",
     "A fifth of the links were flipped (noisy teachers). Constrained EM must obey every link; "
     "PPC's soft links can be overruled by the data.\nCompare the links satisfied and the ARI under "
     "each pane; set the noise to 0 % to see both agree.", 4)

# 5 AP against SCSSAP
lab = Lab()
lab.set_dataset("gaussian-blobs", {"n_samples": 150, "n_centers": 3, "cluster_std": 1.5},
                             seed=1)
lab.add_pane("affinity-propagation", {"damping": 0.75})
lab.add_pane("scssap", {"damping": 0.75})
lab.add_random_links(30, 30)
save("05-ap-scssap", lab, "Affinity propagation against SCSSAP",
     "Both pass responsibility and availability messages between points; SCSSAP adds the 30 + 30 "
     "links to the messages.\nRun both to the end: AP keeps 5 exemplars, SCSSAP 4, closer to the 3 "
     "classes (compare the ARI); the ringed exemplars show which points won.", 5)

# 6 RDP-means, unknown k
lab = Lab()
lab.set_dataset("gaussian-blobs", {"n_samples": 300, "n_centers": 5, "cluster_std": 1.0},
                             seed=3)
# lambda from the data's spread, not from k: a quarter of the total variance (mean squared
# distance to the data mean); 40 + 40 links so that RDP-means' link costs change labels
lam = round(0.25 * float(np.sum(np.var(lab.dataset.X, axis=0))), 2)
lab.add_pane("dpmeans", {"lambda_": lam})
lab.add_pane("rdpmeans", {"lambda_": lam})
lab.add_random_links(40, 40)
save("06-rdpmeans-unknown-k", lab, "DP-means and RDP-means: the number of clusters is not given",
     f"λ = {lam} (a quarter of the data's total variance; no k): a point opens a new cluster when "
     "every centre is farther than λ; RDP-means also pays for each link it breaks.\nRun both to "
     "the end: they find a different number of clusters; click a point to compare its K+1 costs.",
     6)
