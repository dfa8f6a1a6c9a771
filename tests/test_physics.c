#include <criterion/criterion.h>
Test(physics, placeholder) { cr_assert(1); }
