// The client's queue (a moving head over an array, compacted now and then, so that `log()` never
// shifts the array) against a reference: a plain array with `shift()`, under seeded random pushes and
// takes at the depths the client sees (a queue kept near 1,000 events, and one drained to empty).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { EventQueue } from "../dist/queue.js";

/** Deterministic pseudo-random integers in [0, n) (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
}

function check(seed, target) {
  const rnd = random(seed);
  const q = new EventQueue();
  const reference = [];
  let next = 1;
  for (let step = 0; step < 3000; step++) {
    if (reference.length < target || rnd(4) === 0) {
      const burst = 1 + rnd(60);
      for (let k = 0; k < burst; k++) {
        const item = { data: `{"n":${next}}`, receipt: null, seq: next++ };
        const wasEmpty = reference.length === 0;
        assert.equal(q.push(item), wasEmpty, `seed ${seed}: push reports whether the queue was empty`);
        reference.push(item);
      }
    } else {
      const n = Math.min(reference.length, 1 + rnd(150));
      const taken = q.take(n);
      const expected = reference.splice(0, n);
      assert.deepEqual(taken.map((i) => i.seq), expected.map((i) => i.seq), `seed ${seed}, step ${step}: first in, first out`);
    }
    assert.equal(q.size, reference.length, `seed ${seed}, step ${step}: size`);
    assert.equal(q.last(), reference.length ? reference[reference.length - 1] : null, `seed ${seed}, step ${step}: last`);
    assert.equal(q.enqueued - q.taken, reference.length);
  }
}

describe("the event queue", () => {
  it("keeps first-in-first-out order, size and last through compactions at a depth of about 1,000", () => {
    for (let seed = 1; seed <= 20; seed++) check(seed, 1000);
  });

  it("keeps them when it is drained to empty over and over", () => {
    for (let seed = 101; seed <= 120; seed++) check(seed, 20);
  });
});
