//! Stage 1 of the joint search ([`super::pool`]) at one pool size and in one context: per
//! `(scaleOutStep, scaleOutCooldown, scaleOutAggregation, timeWindow)`, the largest
//! `targetPerInstance` that meets the goal, and which of them hold under the variants.
//!
//! In two steps (issue 40, item 3). First, per pair, the largest target that meets the goal in
//! the nominal model: a binary search (waits grow with the target); with a cap from the next
//! larger pool the cap first, since it usually still meets with fewer pooled VMs. Then the pairs'
//! results are checked under the variants cheapest first, and the walk stops at the first that
//! holds (or at one no cheaper than `bound`, the choice so far): the rest cannot be cheaper.
//! One that meets but does not hold is searched below (a binary search for the largest target
//! that holds), and what that finds joins the walk.
//!
//! Why: a candidate that holds is replayed whole under every variant (a replay shows that the
//! target is met only by reaching the end), and a binary search on "holds" checked every probe
//! that met the goal, nearly all of them holding: about 80 % of a tune's replayed minutes
//! (issue 40's measurement) for candidates dearer than the one chosen. The search's choice is
//! the same where waits grow with the target and every pair's largest meeting target holds (a
//! target below it holding too is dearer nearly always: more instances); where a binary search
//! on "holds" found a dearer sibling holding, it is no longer checked.
//!
//! The cap a pair leaves for the next smaller pool is the largest target that held where the
//! walk checked it, else the largest that met the goal (no larger one can hold with fewer
//! pooled VMs either: waits do not shrink with a smaller pool).

use rayon::prelude::*;

use super::params::{Pair, Params};
use super::score::{Job, Required, Scored, cheaper, holds_allowing, score_or_miss, walk_chunk};
use super::variants::Variant;

/// One pair's stage 1: every candidate scored (and whether it was found to hold), the cap it
/// leaves for the next smaller pool, the replays and the candidates checked under the variants.
pub(super) type PairResult = (usize, Vec<(Scored, bool)>, Option<usize>, usize, usize);

/// What [`Stage1::run`] found.
pub(super) struct Ran {
    pub per: Vec<PairResult>,
    /// Some pair's largest meeting target was not checked under the variants (the walk stopped
    /// before it: it is no cheaper than one that holds).
    pub presumed: bool,
}

/// What stage 1 searches with.
pub(super) struct Stage1<'a> {
    pub job: &'a Job<'a>,
    pub pairs: &'a [Pair],
    pub targets: &'a [u32],
    pub eb: bool,
    pub vs: &'a [Variant],
    /// The variants required (`None`: the nominal model only).
    pub share: Option<&'a Required>,
}

struct Pairwise {
    i: usize,
    pts: Vec<(Scored, bool)>,
    /// The largest target index that meets the goal, and the one found to hold.
    meeting: Option<usize>,
    found: Option<usize>,
    checked_top: bool,
    runs: usize,
    checked: usize,
}

impl Pairwise {
    /// Pair `i`, nothing searched yet.
    fn new(i: usize) -> Pairwise {
        Pairwise {
            i,
            pts: Vec::new(),
            meeting: None,
            found: None,
            checked_top: false,
            runs: 0,
            checked: 0,
        }
    }
}

impl Stage1<'_> {
    fn at(&self, ctx: &Params, i: usize, t: usize) -> Params {
        ctx.with_target(self.targets[t], self.pairs[i])
    }

    /// Whether target `t` of pair `s.i` meets the goal nominally (scored once).
    fn meets(&self, ctx: &Params, s: &mut Pairwise, t: usize) -> bool {
        let p = self.at(ctx, s.i, t);
        if let Some((sc, _)) = s.pts.iter().find(|(sc, _)| sc.params == p) {
            return sc.meets;
        }
        s.runs += 1;
        match score_or_miss(self.job, &p, self.eb) {
            Some(sc) => {
                let m = sc.meets;
                s.pts.push((sc, false));
                m
            }
            None => false,
        }
    }

    /// Whether target `t` of pair `s.i` (meeting the goal) holds under the required variants.
    fn holds(&self, ctx: &Params, s: &mut Pairwise, t: usize) -> bool {
        let p = self.at(ctx, s.i, t);
        let h = match self.share {
            None => true,
            Some(sh) => {
                let (h, r) = holds_allowing(self.job, &p, self.eb, self.vs, sh);
                s.runs += r;
                s.checked += 1;
                h
            }
        };
        if h && let Some(e) = s.pts.iter_mut().find(|(sc, _)| sc.params == p) {
            e.1 = true;
        }
        h
    }

    /// The largest target up to `cap` that meets the goal (`capped`: the cap first).
    fn largest_meeting(&self, ctx: &Params, i: usize, cap: usize, capped: bool) -> Pairwise {
        let mut s = Pairwise::new(i);
        if self.targets.is_empty() {
            return s;
        }
        let top = cap.min(self.targets.len() - 1);
        let (mut lo, mut hi) = (0usize, top + 1);
        if capped {
            if self.meets(ctx, &mut s, top) {
                s.meeting = Some(top);
                lo = hi;
            } else {
                hi = top;
            }
        }
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.meets(ctx, &mut s, mid) {
                s.meeting = Some(mid);
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        s
    }

    /// Check the largest meeting target of `s` under the variants; when it misses, the largest
    /// below it that holds (a binary search).
    fn check(&self, ctx: &Params, s: &mut Pairwise) {
        let Some(m) = s.meeting else { return };
        s.checked_top = true;
        if self.holds(ctx, s, m) {
            s.found = Some(m);
            return;
        }
        let (mut lo, mut hi) = (0usize, m);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.meets(ctx, s, mid) && self.holds(ctx, s, mid) {
                s.found = Some(mid);
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
    }

    /// Stage 1 in the context `ctx` for the pairs `idx`, up to `caps` (`capped`: they come from
    /// the next larger pool), the walk stopping at the first that holds or is no cheaper than
    /// `bound`.
    pub fn run(
        &self,
        ctx: &Params,
        idx: &[usize],
        caps: &[Option<usize>],
        capped: bool,
        bound: Option<&Scored>,
    ) -> Ran {
        let mut per: Vec<Pairwise> = idx
            .par_iter()
            .filter_map(|&i| caps[i].map(|cap| self.largest_meeting(ctx, i, cap, capped)))
            .collect();
        if self.share.is_none() {
            // the nominal mode: every candidate that meets holds
            for s in &mut per {
                for e in &mut s.pts {
                    e.1 = e.0.meets;
                }
                s.found = s.meeting;
                s.checked_top = true;
            }
        } else {
            self.walk(ctx, &mut per, bound);
        }
        let presumed = per.iter().any(|s| s.meeting.is_some() && !s.checked_top);
        let mut out: Vec<PairResult> = per
            .into_iter()
            .map(|s| {
                let cap = if s.checked_top { s.found } else { s.meeting };
                (s.i, s.pts, cap, s.runs, s.checked)
            })
            .collect();
        // the pairs with no cap: nothing searched, nothing left for a smaller pool
        for &i in idx {
            if caps[i].is_none() {
                out.push((i, Vec::new(), None, 0, 0));
            }
        }
        Ran { per: out, presumed }
    }

    /// The pairs' largest meeting targets under the variants, cheapest first, a chunk at a
    /// time ([`walk_chunk`]), until one holds or is no cheaper than `bound`.
    fn walk(&self, ctx: &Params, per: &mut [Pairwise], bound: Option<&Scored>) {
        let mut order: Vec<usize> = (0..per.len())
            .filter(|&k| per[k].meeting.is_some())
            .collect();
        let top_of = |s: &Pairwise| -> Option<Scored> {
            let p = self.at(ctx, s.i, s.meeting?);
            s.pts
                .iter()
                .find(|(sc, _)| sc.params == p)
                .map(|(sc, _)| sc.clone())
        };
        let tops: Vec<Option<Scored>> = per.iter().map(top_of).collect();
        order.retain(|&k| tops[k].is_some());
        order.sort_by(|&a, &b| {
            let (x, y) = (tops[a].as_ref(), tops[b].as_ref());
            cheaper(x.expect("kept"), y.expect("kept")).then(a.cmp(&b))
        });
        let mut best: Option<Scored> = bound.cloned();
        let not_cheaper =
            |c: &Scored, b: &Option<Scored>| b.as_ref().is_some_and(|b| !cheaper(c, b).is_lt());
        let mut pos = 0;
        while pos < order.len() {
            let chunk: Vec<usize> = order[pos..(pos + walk_chunk()).min(order.len())].to_vec();
            pos += chunk.len();
            let first = tops[chunk[0]].as_ref().expect("kept");
            if not_cheaper(first, &best) {
                break;
            }
            // the chunk's pairs, checked in parallel
            let mut taken: Vec<(usize, Pairwise)> = Vec::new();
            for &k in &chunk {
                let placeholder = Pairwise::new(per[k].i);
                taken.push((k, std::mem::replace(&mut per[k], placeholder)));
            }
            let snapshot = best.clone();
            taken.par_iter_mut().for_each(|(k, s)| {
                if !not_cheaper(tops[*k].as_ref().expect("kept"), &snapshot) {
                    self.check(ctx, s);
                }
            });
            let mut stop = false;
            for (k, s) in taken {
                if let Some(f) = s.found {
                    let p = self.at(ctx, s.i, f);
                    if let Some((sc, _)) = s.pts.iter().find(|(sc, _)| sc.params == p)
                        && best.as_ref().is_none_or(|b| cheaper(sc, b).is_lt())
                    {
                        best = Some(sc.clone());
                    }
                    // the largest meeting target held: nothing after it is cheaper
                    stop |= s.found == s.meeting;
                }
                per[k] = s;
            }
            if stop {
                break;
            }
        }
    }
}
