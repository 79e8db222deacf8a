// Vectors made by python3-passlib 1.7.4 and Python's hashlib, not by this project: see make-modern-vectors.py,
// run as `/usr/bin/python3 test/hashing/independent/make-modern-vectors.py` on Debian with python3-passlib installed.
// They are kept as data so the suite needs no Python.
import { readFileSync } from 'node:fs';
import type { Vector } from '../vectors.js';

interface ModernVector extends Vector {
  family: string;
  source: string;
}

const file = new URL('./modern-vectors.json', import.meta.url);
const vectors = (JSON.parse(readFileSync(file, 'utf8')) as { vectors: ModernVector[] }).vectors;

export function independentVectors(family: string): ModernVector[] {
  return vectors.filter((vector) => vector.family === family);
}
