#include <criterion/criterion.h>
Test(grid, placeholder) { cr_assert(1); }
