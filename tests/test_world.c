#include <criterion/criterion.h>
Test(world, placeholder) { cr_assert(1); }
