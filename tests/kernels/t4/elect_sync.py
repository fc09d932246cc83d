import numpy as np

PART = 0x49249249


def elect_sync(args, spec):
    flags = np.full(256, 0x7F, dtype=np.uint32)  # every property holds for every thread
    counts = np.array([4, 4, 4, 0] * 2, dtype=np.uint32)
    # leaders: not compared ("check": false); the lowest lane of the mask is what hardware and
    # the emulator are expected to choose, shown here for information.
    lane = np.arange(256) % 32
    leaders = np.zeros(512, dtype=np.uint32)
    leaders[256:] = np.where((PART >> (lane % 32)) & 1, 0, 32)
    return {0: flags, 1: counts, 2: leaders}
