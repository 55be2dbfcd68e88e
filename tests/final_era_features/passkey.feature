# Final-era phrases: passkey / self-extend. The original served phi-2 with self-extend (--grp-attn-n/-w),
# which today's server no longer has: that scenario is skipped, naming the flags (or the absent model file).
@llama.cpp
@passkey
Feature: Passkey / Self-extend with context shift

  Background: Server startup
    Given a server listening on localhost:8080

  Scenario Outline: Passkey
    Given a model file <hf_file> from HF repo <hf_repo>
    And   <n_batch> as batch size
    And   <n_junk> as number of junk
    And   <n_predicted> server max tokens to predict
    And   42 as seed
    And   0.0 temperature
    And   <n_ctx> KV cache size
    And   1 slots
    And   <n_ga> group attention factor to extend context size through self-extend
    And   <n_ga_w> group attention width to extend context size through self-extend
    And   <ngl> GPU offloaded layers
    Then  the server is starting
    Then  the server is healthy
    Given available models
    Then  model 0 is trained on <n_ctx_train> tokens context
    Given a prefix prompt:
    """
    here is an important info hidden inside a lot of irrelevant text. Find it and memorize them. I will quiz you about the important information there.
    """
    And a passkey prompt template:
    """
    The pass key is <passkey> Remember it. <passkey> is the pass key.
    """
    And a junk suffix prompt:
    """
    The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.
    """
    And a suffix prompt:
    """
    What is the pass key? The pass key is
    """
    Given a "<passkey>" passkey challenge prompt with the passkey inserted every <i_pos> junk
    And  a completion request with no api error
    Then <n_predicted> tokens are predicted matching <re_content>

    Examples:
      | hf_repo             | hf_file           | n_ctx_train | ngl | n_ctx | n_batch | n_ga | n_ga_w | n_junk | i_pos | passkey | n_predicted | re_content |
      | TheBloke/phi-2-GGUF | phi-2.Q4_K_M.gguf | 2048        | 5   | 8192  | 512     | 4    | 512    | 250    | 50    | 42      | 1           | 42         |

  # the same challenge on the default model, without self-extend: the prompt is built and answered
  Scenario: Passkey challenge without self-extend
    Given a model file default
    And   512 as batch size
    And   20 as number of junk
    And   4 server max tokens to predict
    And   42 as seed
    And   0.0 temperature
    And   4096 KV cache size
    And   1 slots
    Then  the server is starting
    Given a prefix prompt:
    """
    here is an important info hidden inside a lot of irrelevant text.
    """
    And a passkey prompt template:
    """
    The pass key is 42. Remember it. 42 is the pass key.
    """
    And a junk suffix prompt:
    """
    The grass is green. The sky is blue.
    """
    And a suffix prompt:
    """
    What is the pass key? The pass key is
    """
    Given a "42" passkey challenge prompt with the passkey inserted every 5 junk
    And   a completion request with no api error
    Then  4 tokens are predicted
    And   the completion is not truncated

  Scenario: Self-extend on the default model
    Given a model file default
    And   4 group attention factor to extend context size through self-extend
    And   512 group attention width to extend context size through self-extend
    Then  the server is starting
