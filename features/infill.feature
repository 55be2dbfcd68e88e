@server @infill
Feature: Fill-in-the-middle (/infill)
  /infill completes code between a prefix and a suffix with a model that has FIM tokens. The default model
  has none and is refused with 501 not_supported_error; real infilling needs LLAMA_BDD_INFILL_MODEL.

  Scenario: A model without FIM tokens refuses /infill with 501 not_supported_error
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   512 KV cache size
    Then  the server is starting
    When  the code between "def add(a, b):\n    return " and "\n" is infilled
    Then  the infill is refused as not supported by the model
    And   the server still generates text

  Scenario: A FIM model fills in the middle
    Given a server listening on localhost:8080
    And   a fill-in-the-middle model
    And   1 slots
    And   1024 KV cache size
    Then  the server is starting
    Given 8 max tokens to predict
    When  the code between "def add(a, b):\n    return " and "\n" is infilled
    Then  the infill answers at most 8 tokens of code
