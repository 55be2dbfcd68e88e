# Scenarios in the style of llama.cpp's final behave suite (Nov 2024), with its phrases word for word.
# They name the HF file stories260K.gguf: set LLAMA_BDD_MODELS_DIR to a folder holding it (any small GGUF
# linked under that name runs them); without it they are skipped, naming the file.
# Expectations are structural (counts, flags, fields), not the text of one model.
@llama.cpp
@server
Feature: llama.cpp server (final-era phrases)

  Background: Server startup
    Given a server listening on localhost:8080
    And   a model file tinyllamas/stories260K.gguf from HF repo ggml-org/models
    And   a model file test-model.gguf
    And   a model alias tinyllama-2
    And   42 as server seed
    And   1024 KV cache size
    And   128 as batch size
    And   128 as ubatch size
    And   2 slots
    And   64 server max tokens to predict
    And   prometheus compatible metrics exposed
    And   2 threads
    And   0 GPU offloaded layers
    Then  the server is starting
    Then  the server is healthy

  Scenario: Health
    Then the server is ready
    And  all slots are idle

  Scenario Outline: Completion
    Given a prompt <prompt>
    And   <n_predict> max tokens to predict
    And   0.0 temperature
    And   a completion request with no api error
    Then  <n_predicted> tokens are predicted matching \w+
    And   the completion is <truncated> truncated
    And   <n_prompt> prompt tokens are processed
    And   prometheus metrics are exposed
    And   metric llamacpp:tokens_predicted is <n_predicted>

    Examples: Prompts
      | prompt                           | n_predict | n_prompt | n_predicted | truncated |
      | I believe the meaning of life is | 8         | -1       | 8           | not       |

    # Server changed: in 2024 the server's --n-predict capped a request's larger n_predict (64 of 256 here);
    # today a request's n_predict replaces the server's (server-context.cpp: n_predict_max is the task's
    # n_predict when given), so 256 are allowed and the generation runs to its end. -D known_bugs=run runs it.
    @known_bug
    Examples: The server's max tokens cap the request's
      | prompt                           | n_predict | n_prompt | n_predicted | truncated |
      | Write a joke about AI            | 256       | -1       | 64          | not       |

  Scenario Outline: Prompt tokens processed are the prompt's tokens
    Given a prompt <prompt>
    And   8 max tokens to predict
    And   the request field ignore_eos is true
    And   a completion request with no api error
    Then  8 tokens are predicted
    And   <n_prompt> prompt tokens are processed

    @model.smollm2-135m
    Examples: SmolLM2-135M adds no BOS: the prompt's own tokens
      | prompt                          | n_prompt |
      | What is the capital of France?  | 7        |

  Scenario Outline: OAI Compatibility
    Given a model <model>
    And   a system prompt <system_prompt>
    And   a user prompt <user_prompt>
    And   <max_tokens> max tokens to predict
    And   streaming is <enable_streaming>
    Given an OAI compatible chat completions request with no api error
    Then  <n_predicted> tokens are predicted
    And   <n_prompt> prompt tokens are processed
    And   the completion is <truncated> truncated

    Examples: Prompts
      | model        | system_prompt               | user_prompt                          | max_tokens | n_prompt | n_predicted | enable_streaming | truncated |
      | llama-2      | Book                        | What is the best book                | 8          | -1       | 8           | disabled         |           |
      | codellama70b | You are a coding assistant. | Write the fibonacci function in c++. | 16         | -1       | 16          | enabled          |           |

  Scenario Outline: OAI Compatibility w/ response format
    Given a model test
    And   a system prompt test
    And   a user prompt <user_prompt>
    And   a response format <response_format>
    And   10 max tokens to predict
    Given an OAI compatible chat completions request with no api error
    Then  <n_predicted> tokens are predicted matching <re_content>

    @model.smollm2-135m
    Examples: SmolLM2-135M
      | user_prompt         | response_format                                    | n_predicted | re_content |
      | What is the answer? | {"type": "json_object", "schema": {"const": "42"}} | 8           | "42"       |

  Scenario: Tokenize / Detokenize
    When tokenizing:
    """
    What is the capital of France ?
    """
    Then tokens can be detokenized
    And  tokens do not begin with BOS

  # Without 'BOS token is N' the BOS is the model's own (added by /tokenize, else /props bos_token).
  # SmolLM2 adds no BOS (add_bos_token false): its row starts the text with its BOS token <|im_start|> (id 1),
  # so 'tokens begin with BOS' holds with special tokens parsed, and not once that token is removed
  Scenario Outline: Tokenize w/ BOS
    Given adding special tokens
    When  tokenizing:
    """
    <text>
    """
    Given BOS token is <bos>
    Then  tokens begin with BOS
    Given first token is removed
    Then  tokens do not begin with BOS

    @model.smollm2-135m
    Examples: SmolLM2-135M
      | bos | text                                            |
      | 1   | <\|im_start\|>What is the capital of Germany? |

  Scenario: Tokenize with pieces
    When  tokenizing with pieces
    """
    What is the capital of Germany?
    媽
    """
    Then  tokens are given with pieces

  Scenario Outline: Models available
    Given available models
    Then  1 models are supported
    Then  model 0 is identified by tinyllama-2
    Then  model 0 is trained on <n_ctx_train> tokens context

    @model.smollm2-135m
    Examples: SmolLM2-135M (llama.context_length)
      | n_ctx_train |
      | 8192        |
