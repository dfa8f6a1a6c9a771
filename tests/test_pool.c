#include <criterion/criterion.h>
Test(pool, placeholder) { cr_assert(1); }
