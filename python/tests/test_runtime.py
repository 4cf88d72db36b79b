"""The GIL is released while the library computes; absurd sizes raise
MemoryError instead of ending the process; the library's errors keep
their element index."""

import threading
import time

import pytest

import mparray as mp


def test_gil_released_during_computation():
    # CPU engine: the same call path as on CUDA, and long enough to see.
    x = mp.FloatArray.random(1 << 12, precision=3000, seed=1, engine="cpu")
    t = time.perf_counter()
    x.exp()
    alone = time.perf_counter() - t
    ticks = [0]
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks[0] += 1

    # The counting rate with nothing else running.
    th = threading.Thread(target=count)
    th.start()
    time.sleep(0.2)
    done.set()
    th.join()
    rate = ticks[0] / 0.2
    ticks[0] = 0
    done.clear()
    th = threading.Thread(target=count)
    th.start()
    try:
        t = time.perf_counter()
        x.exp()
        during = time.perf_counter() - t
    finally:
        done.set()
        th.join()
    # With the GIL held the counting thread would be frozen for the whole
    # call but a switch interval or two (5 ms each); released, it counts
    # all along, if slower beside the library's threads.
    assert ticks[0] > 0.1 * rate * during, (ticks[0], rate, during, alone)


def test_memory_error_not_a_crash():
    with pytest.raises(MemoryError):
        mp.IntArray.zeros(1 << 50, 1 << 20, engine="cpu")
    with pytest.raises(MemoryError):
        mp.FloatArray.zeros(1 << 55, precision=1 << 20, engine="cpu")
    with pytest.raises(MemoryError):
        mp.FloatArray.random(1 << 48, precision=4096, engine="cpu")


def test_to_int_error_names_the_element():
    x = mp.FloatArray([1.0, 2.0, float("nan"), -1.0])
    with pytest.raises(ValueError) as e:
        x.to_int(64)
    assert e.value.index in (2, 3) and f"element {e.value.index}" in str(e.value)
