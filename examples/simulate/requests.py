#!/usr/bin/env python3
"""Generate the request traces of the serving examples (seeded, standard library only).

    python3 examples/simulate/requests.py            # rewrites both CSVs beside this file

Each trace is one week of requests a minute (`timestamp,requests`, UTC, from Monday
2026-11-02 00:00), shaped like an interactive service's traffic:

- a working day in the users' time zone: a morning ramp from 07:00, a plateau with a lunch dip,
  the peak mid-afternoon, an evening tail to 23:00, the trough at night (a fixed floor of
  background traffic: batch callers, other time zones);
- weekends at a share of a weekday's daytime traffic;
- slow drift of +-10 % (an AR(1) on a 20-minute scale) and a few short bursts (a release, a
  demo: 15-30 minutes at 1.3-1.6 times the rate), twice a week on average;
- the minute's count drawn as Poisson around the rate.

Seeds and shapes are fixed below: the same file comes out on every run (Python's `random`
is a Mersenne Twister whose sequence for a given seed is stable across versions).
"""

import math
import os
import random

START_EPOCH = 1793577600  # 2026-11-02T00:00:00Z, a Monday
MINUTES = 7 * 24 * 60

EXAMPLES = [
    # llm-chat-vllm.yaml: 16 requests at once, 4 s each: 240 a minute per VM at full load;
    # Western Europe (UTC+1 in November); peak about 1,100 a minute (4.6 VMs of work)
    dict(
        file="llm-chat-vllm.requests.csv",
        seed=36_001,
        utc_offset_hours=1,
        night=45.0,
        peak=1100.0,
        weekend_share=0.35,
    ),
    # llm-70b-tensor-parallel.yaml: 32 at once, 400 tokens at 1,600 tokens/s per VM (8 s
    # each): 240 a minute per VM; US East (UTC-5 in November); peak about 650 a minute
    dict(
        file="llm-70b-tensor-parallel.requests.csv",
        seed=36_002,
        utc_offset_hours=-5,
        night=15.0,
        peak=650.0,
        weekend_share=0.25,
    ),
]


def day_shape(hour):
    """Share of the day's peak at local `hour` (0..24), 0 at night, 1 at the peak."""
    g = lambda mu, sigma, h=hour: math.exp(-0.5 * ((h - mu) / sigma) ** 2)
    morning = 0.75 * g(10.5, 1.6)
    afternoon = 1.0 * g(15.0, 2.0)
    evening = 0.35 * g(20.0, 1.8)
    lunch = -0.18 * g(12.5, 0.6)
    ramp = 1.0 / (1.0 + math.exp(-(hour - 7.5) * 2.0))  # nothing before 07:00
    tail = 1.0 / (1.0 + math.exp((hour - 22.5) * 2.0))  # and after 23:00
    return max(0.0, (morning + afternoon + evening + lunch) * ramp * tail)


PEAK_SHAPE = max(day_shape(h / 60.0) for h in range(24 * 60))


def poisson(rng, lam):
    """Knuth's product method in pieces of at most 200 (a sum of Poissons is Poisson)."""
    if lam <= 0:
        return 0
    pieces = max(1, math.ceil(lam / 200.0))
    limit = math.exp(-lam / pieces)
    k = 0
    for _ in range(pieces):
        p = rng.random()
        while p >= limit:
            k += 1
            p *= rng.random()
    return k


def trace(ex):
    rng = random.Random(ex["seed"])
    drift = 0.0
    bursts = []  # (start minute, length, factor)
    t = 0
    while True:
        t += int(rng.expovariate(2.0 / MINUTES))  # twice a week on average
        if t >= MINUTES:
            break
        bursts.append((t, rng.randint(15, 30), rng.uniform(1.3, 1.6)))
    rows = []
    for m in range(MINUTES):
        local = m + ex["utc_offset_hours"] * 60
        day = (local // 1440) % 7  # 0 = Monday
        hour = (local % 1440) / 60.0
        share = day_shape(hour) / PEAK_SHAPE
        if day >= 5:
            share *= ex["weekend_share"]
        rate = ex["night"] + (ex["peak"] - ex["night"]) * share
        drift = 0.95 * drift + rng.gauss(0.0, 0.1 * math.sqrt(1 - 0.95**2))
        rate *= 1.0 + drift
        for start, length, factor in bursts:
            if start <= m < start + length:
                rate *= factor
        rows.append(poisson(rng, rate))
    return rows


def stamp(m):
    s = START_EPOCH + 60 * m
    days, rest = divmod(s, 86400)
    # civil date from days since 1970-01-01 (Howard Hinnant's algorithm)
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    mo = mp + 3 if mp < 10 else mp - 9
    y += mo <= 2
    return "%04d-%02d-%02dT%02d:%02d:00Z" % (y, mo, d, rest // 3600, rest % 3600 // 60)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for ex in EXAMPLES:
        rows = trace(ex)
        with open(os.path.join(here, ex["file"]), "w", newline="\n") as f:
            f.write("timestamp,requests\n")
            for m, n in enumerate(rows):
                f.write("%s,%d\n" % (stamp(m), n))
        print("%s: %d minutes, %d requests, peak %d a minute" % (ex["file"], len(rows), sum(rows), max(rows)))


if __name__ == "__main__":
    main()
