// A private header of Flex.
