// Allocation positions (SPEC 4), Verilog twin of allocation_positions() in
// modules/extensions/dual_kernel_tables.cpp and its pin view: the K predetermined positions of a
// preempting kernel's TBs in an SM's register file and shared memory. Operations:
//   0 read(pos): the position's register and shared-memory offsets;
//   1 configure(regs, shm, tb_regs, tb_shm): n = min(K, regs / tb_regs, shm / tb_shm) positions
//     (a zero TB size does not limit), position k at k x tb_regs and k x tb_shm.
// The response carries the count (and for a read the offsets; configure: position 0's, zero);
// latency 1 cycle (the divisions are combinational here: a twin of the behaviour, not a sized
// divider). A read past the count, an offset wider than OB bits, an unknown operation:
// resp_error, nothing changes.
/* verilator lint_off WIDTH */
module allocation_positions #(
    parameter K = 16,  // positions
    parameter OB = 16  // offset bits
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        req_valid,
    input  wire [1:0]  req_op,   // 0 read, 1 configure
    input  wire [7:0]  req_pos,
    input  wire [31:0] req_regs,
    input  wire [31:0] req_shm,
    input  wire [31:0] req_tb_regs,
    input  wire [31:0] req_tb_shm,
    output reg         resp_valid,
    output reg         resp_error,
    output reg  [7:0]  resp_count,
    output reg  [31:0] resp_reg_offset,
    output reg  [31:0] resp_shm_offset
);
  reg [7:0] count;
  reg [31:0] tb_regs, tb_shm;
  reg [31:0] n;             // positions of a configure
  reg [63:0] last_reg, last_shm;  // the last position's offsets
  reg err;

  always @(*) begin
    n = K;
    if (req_tb_regs != 0 && req_regs / req_tb_regs < n) n = req_regs / req_tb_regs;
    if (req_tb_shm != 0 && req_shm / req_tb_shm < n) n = req_shm / req_tb_shm;
    last_reg = n == 0 ? 64'd0 : (n - 1) * {32'd0, req_tb_regs};
    last_shm = n == 0 ? 64'd0 : (n - 1) * {32'd0, req_tb_shm};
    case (req_op)
      2'd0: err = req_pos >= count;
      2'd1: err = (last_reg >> OB) != 0 || (last_shm >> OB) != 0;
      default: err = 1;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      count <= 8'd0;
      tb_regs <= 32'd0;
      tb_shm <= 32'd0;
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_count <= 8'd0;
      resp_reg_offset <= 32'd0;
      resp_shm_offset <= 32'd0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        resp_error <= err;
        if (!err) begin
          if (req_op == 2'd1) begin
            count <= n[7:0];
            tb_regs <= req_tb_regs;
            tb_shm <= req_tb_shm;
            resp_count <= n[7:0];
            resp_reg_offset <= 32'd0;
            resp_shm_offset <= 32'd0;
          end else begin
            resp_count <= count;
            resp_reg_offset <= req_pos * tb_regs;
            resp_shm_offset <= req_pos * tb_shm;
          end
        end
      end
    end
  end
endmodule
