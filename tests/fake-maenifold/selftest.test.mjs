// `node --test <dir>` only picks up files named like *.test.mjs; the tests live in selftest.mjs.
import './selftest.mjs';
