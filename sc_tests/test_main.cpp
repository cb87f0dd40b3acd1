// Test entry (DESIGN, Testing): main = InitGoogleTest + sc_elab_and_sim; sc_main runs the tests.
#include <gtest/gtest.h>
#include <systemc>

#include <cstdlib>

int sc_main(int, char**) { return RUN_ALL_TESTS(); }

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);  // keeps --gtest_list_tests output clean
  ::testing::InitGoogleTest(&argc, argv);
  return sc_core::sc_elab_and_sim(argc, argv);
}
