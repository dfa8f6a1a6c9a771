#include <criterion/criterion.h>
Test(prng, placeholder) { cr_assert(1); }
