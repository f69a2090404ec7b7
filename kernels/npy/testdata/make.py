"""Regenerates the .npy fixtures of kernels/npy's tests with numpy itself,
so the reader is tested against files numpy wrote.

usage: /usr/bin/python3 make.py   (in this folder)
"""
import numpy as np

np.save('f4.npy', np.array([[1.5, -2.0, 0.25], [3.0, 1e-8, -0.0]], dtype='<f4'))
np.save('f2.npy', np.array([[1.0, -0.5], [65504.0, 6e-8], [np.inf, -np.inf]], dtype='<f2'))
np.save('fortran.npy', np.asfortranarray(np.arange(6, dtype='<f4').reshape(2, 3)))
np.save('vector.npy', np.array([1, 2, 3], dtype='<f4'))
np.save('f8.npy', np.array([[0.1, 0.2]], dtype='<f8'))
np.save('int.npy', np.array([[1, 2]], dtype='<i8'))
np.save('empty.npy', np.zeros((0, 4), dtype='<f4'))
with open('f4.npy', 'rb') as f:
    data = f.read()
with open('truncated.npy', 'wb') as f:
    f.write(data[:-5])
