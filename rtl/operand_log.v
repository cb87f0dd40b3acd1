// Operand log (SPEC 3), Verilog twin of the admission logic of modules/extensions/replay_queue.*'s
// OperandLog and its pin view: N entries split evenly among the resident TBs (share = N / resident),
// and per TB slot the entries its in-flight memory instructions hold (a load 1, a store 2). The
// operand values themselves are not modelled (the model carries no data): the twin is the
// allocation state a hardware log keeps beside its value array. Operations:
//   0 partition(n = resident TBs): the share becomes N / n;
//   1 allocate(tb, n): TB tb takes n more entries, refused past its share;
//   2 release(tb, n): they leave (its instruction's last TLB check);
//   3 take(tb): the TB leaves the SM with its entries; resp_taken is how many it held.
// The response is the share and TB tb's entries in use after the operation; latency 1 cycle.
// Partition by 0 or more than T TBs, a TB slot >= T, an allocation past the share, a release of
// more than held, n not 1 or 2 for allocate/release: resp_error, nothing changes.
/* verilator lint_off WIDTH */
module operand_log #(
    parameter N = 32,  // entries per SM (bytes / (warp size x 8 B))
    parameter T = 16   // TB slots per SM
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        req_valid,
    input  wire [1:0]  req_op,   // 0 partition, 1 allocate, 2 release, 3 take
    input  wire [7:0]  req_tb,
    input  wire [7:0]  req_n,
    output reg         resp_valid,
    output reg         resp_error,
    output reg  [15:0] resp_share,
    output reg  [15:0] resp_used,
    output reg  [15:0] resp_taken
);
  reg [15:0] used [0:T-1];
  reg [15:0] share;
  reg [15:0] cur;  // used[req_tb]
  reg err;
  integer i;
  wire tb_ok = req_tb < T;
  wire n_ok = req_n == 1 || req_n == 2;

  always @(*) begin
    cur = tb_ok ? used[req_tb] : 16'd0;
    case (req_op)
      2'd0: err = req_n == 0 || req_n > T;
      2'd1: err = !tb_ok || !n_ok || cur + req_n > share;
      2'd2: err = !tb_ok || !n_ok || cur < req_n;
      default: err = !tb_ok;
    endcase
  end

  always @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < T; i = i + 1) used[i] <= 16'd0;
      share <= 16'd0;
      resp_valid <= 1'b0;
      resp_error <= 1'b0;
      resp_share <= 16'd0;
      resp_used <= 16'd0;
      resp_taken <= 16'd0;
    end else begin
      resp_valid <= req_valid;
      if (req_valid) begin
        resp_error <= err;
        if (!err) begin
          resp_taken <= 16'd0;
          resp_share <= share;
          resp_used <= cur;
          case (req_op)
            2'd0: begin
              share <= N / req_n;
              resp_share <= N / req_n;
            end
            2'd1: begin
              used[req_tb] <= cur + req_n;
              resp_used <= cur + req_n;
            end
            2'd2: begin
              used[req_tb] <= cur - req_n;
              resp_used <= cur - req_n;
            end
            default: begin
              used[req_tb] <= 16'd0;
              resp_used <= 16'd0;
              resp_taken <= cur;
            end
          endcase
        end
      end
    end
  end
endmodule
