#pragma once
// A bare TLM initiator for tests that drive one block's target socket directly (a fill unit, an
// L2 slice): the test calls out->b_transport itself.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace mpgpu::test {

struct TestInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<TestInitiator> out;
  explicit TestInitiator(sc_core::sc_module_name n) : sc_module(n), out("out") {}
};

}  // namespace mpgpu::test
